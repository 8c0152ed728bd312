"""The bottom layer: errors, files, numba kernels, links, update rules, the memory budget."""
