"""Layer 5: linear TITOP blocks and their assembly into uncertain models (docs/design.md §1, §3)."""
