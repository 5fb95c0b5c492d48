"""Operations of the memory protocol, each a plan builder."""
