x = 1
def f(x)
    return x
