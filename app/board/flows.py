"""The board's modal flows (continue, release, archive, update, organize, doctor, chain)."""


class FlowsMixin:
    """Actions of the modal flows; mixed into MemboardApp (the flows helper implements them)."""
