"""Questions asked of the simulation (pure Python, no Qt).

`whatif`: what a design loses when parts fail — one scenario, or every single failure of a kind
(N-1) with symmetry classes (`symmetry`). `heat`: each network link's utilisation under one
collective, for the heat map. Both reuse the simulation's stages; what a failure takes down is
`model.failures.closure`, the one function the simulation reads too.
"""
