"""The 95% interval of a median, shared by the benchmarks that print one
(bench/llama-bench.sh, bench/whisper-bench.sh, bench/op-self.sh): the
order statistics a sign test gives, so that no distribution is assumed
of rounds that a shared machine moves by 10% and more.

SPDX-License-Identifier: MIT
"""
import math


def interval(xs):
    """(low, high) of the median of xs at 95% or more; None with fewer than 6
    values, where no pair of order statistics reaches 95%."""
    r, n = sorted(xs), len(xs)
    cdf, k = 0.0, -1
    while k + 1 < n and cdf + math.comb(n, k + 1) / 2 ** n <= 0.025:
        k += 1
        cdf += math.comb(n, k) / 2 ** n
    return None if k < 0 else (r[k], r[n - 1 - k])
