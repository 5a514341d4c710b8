"""What `atc up` and `atc chat` run: the mesh's process plan, the foreground
supervision loop and the terminal chat."""
