from lanes import make, make_positional


def probe(h: int) -> None:
    make("ExternalStream", stream_ptr=h).query()  # expect: XST102
    make("Stream", priority=-1).query()
    make_positional("ExternalStream", h).synchronize()  # expect: XST101
    make_positional("Stream", 0).synchronize()
