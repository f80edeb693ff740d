"""Snack Time: rules, components, observation encoder, AEC env binding and the solo Gymnasium env."""
