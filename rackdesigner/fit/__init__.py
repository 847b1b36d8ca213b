"""What fits the site: compositions within a site's limits and a budget, and their Pareto
front (search.py), measured part by part on the sweep engine (parts.py, engine.py)."""

from rackdesigner.fit.search import Candidate, FitError, FitResult, fit

__all__ = ["Candidate", "FitError", "FitResult", "fit"]
