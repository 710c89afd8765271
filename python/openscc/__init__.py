"""OpenSCC's Python tools: reports and plots of job directories written by
`rccerun --trace` and `rccerun --model` (docs/monitoring.md)."""

__version__ = "0.1.0"
