"""Snack Wars: rules, components, observation encoder and env binding."""
