"""Codebooks that ship with tol-tasks (JSON files beside this module)."""
