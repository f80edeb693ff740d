"""Speed Snacks: rules, components, observation encoder and parallel env binding."""
