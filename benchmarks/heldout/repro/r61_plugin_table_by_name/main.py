from loader import load


def mark() -> None:
    load("acl").record_event()  # expect: XST103
    load("pool").record_event()
