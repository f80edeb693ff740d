"""Snack Rabbits: rules, components, observation encoder and env binding."""
