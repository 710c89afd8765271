"""A pipeline of Python stages (openscc.pipeline, docs/data-movement.md "Pipelines"):
rccerun -nue 4 python3 apps/python/pipeline.py [bytes] [memory]
Every stage adds its number to each byte; the last stage checks the result and prints the measured and
predicted times, then the layout the cost model would pick."""
import sys

from openscc import pipeline, rcce

nbytes = int(sys.argv[1]) if len(sys.argv) > 1 else 65536
memory = sys.argv[2] if len(sys.argv) > 2 else "private"
data = bytes(i % 251 for i in range(nbytes)) if rcce.ue() == 0 else None


def stage(chunk: memoryview, s: int) -> None:
    for i in range(len(chunk)):
        chunk[i] = (chunk[i] + s + 1) & 255


res = pipeline.run(stage, data, size=nbytes, chunk=4096, memory=memory)
if res.out is not None:
    shift = sum(range(1, rcce.num_ues() + 1))
    assert res.out == bytes((i % 251 + shift) & 255 for i in range(nbytes)), "pipeline: wrong result"
    order, chunk, t = pipeline.best(nbytes, res.tc_per_byte, memory=memory)
    print(f"pipeline.py: {memory}: {res.seconds:.6f} s measured, {res.predicted:.6f} s predicted; "
          f"the model would take order {order}, chunk {chunk}: {t:.6f} s")
