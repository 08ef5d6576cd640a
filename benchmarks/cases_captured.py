"""fnet's benchmark cases (cases_fnet.py) with each case's pure update wrapped by
``fnet.capture``: recorded once per input signature, then replayed from its schedule.

The same updates as the ``fnet`` column, so the two columns differ only by the capture. Where
this checkout's fnet has no ``fnet.capture`` yet, the framework is reported as not available
(``UNAVAILABLE``, with no cases) instead of failing.
"""

import fnet

if hasattr(fnet, "capture"):
    import cases_fnet

    cases_fnet.WRAP = fnet.capture
    CASES = cases_fnet.CASES
    UNAVAILABLE = None
    to_numpy = cases_fnet.to_numpy
    use_device, prepare, sync = cases_fnet.use_device, cases_fnet.prepare, cases_fnet.sync

    def init(threads):
        info = cases_fnet.init(threads)
        return {**info, "version": info["version"] + ", fnet.capture"}

else:
    CASES = {}
    UNAVAILABLE = "this checkout's fnet has no fnet.capture (issue #20)"

    def init(threads):
        return {"version": f"fnet {getattr(fnet, '__version__', 'dev')}, without fnet.capture"}

    def to_numpy(result):
        return result

    def use_device(spec):  # not available on any device: no cases to send there
        return {}
