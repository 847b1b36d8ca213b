"""The Racks tab: rack elevations (front/rear), the floor plan, placing equipment, printing."""
