"""Threads as scripts use them, in both hosts (tests/bridge.rs compares the output):
locks exclude, conditions, events and queues wait, executors map, and derivatives built
and called from several threads at once share the caches and stay exact."""
import concurrent.futures
import math
import queue
import threading

import numpy as np
import tangent

# A lock excludes: 4 threads x 2000 read-modify-write steps lose none.
counter = [0]
lock = threading.Lock()


def add_many():
    for _ in range(2000):
        with lock:
            v = counter[0]
            counter[0] = v + 1


workers = [threading.Thread(target=add_many) for _ in range(4)]
for t in workers:
    t.start()
for t in workers:
    t.join()
print("lock excludes:", counter[0] == 8000)

# A condition waits until notified; a reentrant lock nests.
cond = threading.Condition()
ready = []


def produce():
    with cond:
        ready.append(1)
        cond.notify_all()


with cond:
    threading.Thread(target=produce).start()
    print("condition wait:", cond.wait_for(lambda: ready, timeout=10))
rlock = threading.RLock()
with rlock:
    with rlock:
        print("rlock nests: True")

# An event, a queue, a semaphore.
event = threading.Event()
threading.Timer(0.01, event.set).start()
print("event wait:", event.wait(10))
q = queue.Queue()
threading.Thread(target=lambda: [q.put(k) for k in range(5)]).start()
print("queue order:", [q.get(timeout=10) for _ in range(5)])
sem = threading.Semaphore(0)
threading.Thread(target=sem.release).start()
print("semaphore:", sem.acquire(timeout=10))


def f(x):
    return math.sin(x) * x * x


def g(v):
    return np.sum(np.tanh(v) * v)


xs = [0.1 * k for k in range(24)]
vs = [np.linspace(-1.0, 1.0, 5) * k for k in range(8)]
with concurrent.futures.ThreadPoolExecutor(4) as pool:
    print("executor map:", list(pool.map(lambda k: k * k, range(6))))
    grads = list(pool.map(lambda x: tangent.grad(f)(x), xs))
    forward = list(pool.map(lambda x: tangent.autodiff(f, mode="forward")(x, 1.0), xs))
    arrays = list(pool.map(lambda v: tangent.grad(g)(v), vs))
exact = [math.cos(x) * x * x + 2 * x * math.sin(x) for x in xs]
print("derivatives from 4 threads exact:",
      all(abs(a - b) < 1e-12 for a, b in zip(grads, exact)),
      all(abs(a - b) < 1e-12 for a, b in zip(forward, exact)),
      all(np.allclose(a, np.tanh(v) + v * (1 - np.tanh(v) ** 2)) for a, v in zip(arrays, vs)))
print("one derivative per function and mode:", tangent.grad(f) is tangent.grad(f))
