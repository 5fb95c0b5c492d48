"""The core: memory formats, plans and operations, with no UI import."""
