from .streams import Cfg, Kind, Trainer


def main_ext(h):
    Trainer(Cfg(kind=Kind.EXTERNAL, handle=h)).run()  # expect: XST101


def main_managed():
    Trainer(Cfg()).run()
