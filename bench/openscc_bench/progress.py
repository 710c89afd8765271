"""The progress log on stdout."""


def log(msg: str) -> None:
    print(msg, flush=True)
