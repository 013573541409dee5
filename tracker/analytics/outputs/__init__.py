"""What the analytics write for people: the HTML report, plots and export files."""
