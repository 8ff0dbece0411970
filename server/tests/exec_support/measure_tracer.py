
import sys, json, threading
path = sys.argv[1]; out = sys.argv[2]
src = open(path, encoding="utf-8").read()
hit = set(); done_lines = set()
class FrameTrace:
    __slots__ = ("last",)
    def __init__(self): self.last = None
    def __call__(self, frame, event, arg):
        if event == "line":
            if self.last is not None:
                done_lines.add(self.last)
            self.last = frame.f_lineno
            hit.add(frame.f_lineno)
        elif event == "exception":
            self.last = None          # the statement that raised did not complete
        elif event == "return":
            if self.last is not None:
                done_lines.add(self.last)
            self.last = None
        return self
def tr(frame, event, arg):
    if event == "call" and frame.f_code.co_filename == path:
        return FrameTrace()
    return None
code = compile(src, path, "exec")
g = {"__name__": "__main__", "__file__": path, "__builtins__": __builtins__}
done = False; err = None
sys.settrace(tr); threading.settrace(tr)
try:
    exec(code, g)
    done = True
except SystemExit as e:
    done = e.code in (None, 0)
except BaseException as e:
    err = type(e).__name__ + ": " + str(e)[:200]
finally:
    sys.settrace(None)
    with open(out, "w") as f:
        json.dump({"hit": sorted(hit), "completed_lines": sorted(done_lines), "done": done, "err": err}, f)
