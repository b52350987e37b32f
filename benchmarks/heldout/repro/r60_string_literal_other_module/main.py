from lanes import pick


def drain() -> None:
    if (lane := pick("decoder")) is not None:
        lane.synchronize()  # expect: XST101
    if (other := pick("staging")) is not None:
        other.synchronize()
