"""What the Python tests share: PASS/FAIL lines, a count of failures, and a
check that a call raises a given exception whose message holds a text."""


class Checks:
    def __init__(self, prefix=""):
        self.prefix = prefix
        self.failed = 0

    def check(self, name, cond, why=""):
        if cond:
            print("PASS %s%s" % (self.prefix, name))
        else:
            self.failed += 1
            print("FAIL %s%s%s" % (self.prefix, name, ": " + why if why else ""))

    def raises(self, name, exc, fn, pattern=""):
        try:
            fn()
        except exc as e:
            self.check(name, pattern in str(e), "message %r lacks %r" % (str(e), pattern))
            return
        except Exception as e:  # noqa: BLE001 - any other exception is a failure
            self.check(name, False, "raised %s: %s" % (type(e).__name__, e))
            return
        self.check(name, False, "nothing raised")
