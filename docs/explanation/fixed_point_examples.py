"""Examples of the INT32 fixed-point format (rl.fixed_point), shown on the fixed-point page.

Run it from the repository root::

    .venv/bin/python docs/explanation/fixed_point_examples.py
"""

# [start-values]
import numpy as np

from rl import fixed_point as fx

q = fx.to_q16(np.array([1.0, -0.5, 0.1, 32767.99]))
print("Q15.16 raw:", q.tolist())
print("back:", [float(v) for v in fx.from_q16(q)])
low, high = fx.from_q16(fx.INT32_MIN), fx.from_q16(fx.INT32_MAX)
print("step:", 2**-16, "range:", float(low), "..", float(high))
# [end-values]

# [start-coefficients]
for x in (0.1, 0.95, 0.99):
    c = fx.coefficient(x)
    print(f"{x} -> {c} / 32768 = {c / 32768:.6f}")
try:
    fx.coefficient(1.0, "gamma")
except ValueError as error:
    print(error)
# [end-coefficients]

# [start-mul]
x = fx.to_q16(np.float64(3.0))
c = fx.coefficient(0.1)
print("3.0 * 0.1 =", fx.from_q16(fx.mul(int(x), c)))  # floor(x c / 2**15 + 1/2)
print("rounds half up:", fx.mul(1, 16384), fx.mul(-1, 16384), fx.mul(3, 16384))
print("saturates:", fx.sat_add(fx.INT32_MAX, 1) == fx.INT32_MAX, fx.sat_sub(fx.INT32_MIN, 1))
# [end-mul]

# [start-update]
alpha, gamma = fx.coefficient(0.1), fx.coefficient(0.99)
q_sa, reward = 0, fx.VALUE_ONE  # Q[s, a] = 0, r = 1
best_next = fx.to_q16(np.float64(0.5))  # max Q[s', a'] = 0.5
target = fx.sat_add(reward, fx.mul(int(best_next), gamma))
q_sa = fx.sat_add(q_sa, fx.mul(fx.sat_sub(target, q_sa), alpha))
in_float = 0.1 * (1 + 0.99 * 0.5)
print(f"new Q: raw {q_sa} = {float(fx.from_q16(q_sa)):.6f} (in float: {in_float:.6f})")
# [end-update]
