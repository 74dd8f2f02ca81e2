"""The use-cases both front ends (cli/, tui/) share: snapshot reads, placing and creating,
growing, reassigning, filling placeholders, plans. Typed inputs and results; no printing,
no argparse, no Textual."""
