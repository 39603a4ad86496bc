"""The one tool catalog: interface facts, our descriptions, argument validation."""
