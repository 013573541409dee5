"""gpu-tracker: watches GPU prices and promotions across clouds."""

__version__ = "0.1.0"
