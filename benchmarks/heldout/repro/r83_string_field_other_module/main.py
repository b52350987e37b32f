from lanes import LaneSpec, build_lane, compared_lane


def drain(h: int) -> None:
    build_lane(LaneSpec("external", handle=h)).synchronize()  # expect: XST101
    build_lane(LaneSpec("pool")).synchronize()
    compared_lane(LaneSpec("external", handle=h)).synchronize()  # expect: XST101
    compared_lane(LaneSpec("pool")).synchronize()
