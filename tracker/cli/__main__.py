from tracker.cli import run

run()
