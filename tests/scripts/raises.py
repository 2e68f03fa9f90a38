import tangent


def helper(x):
    return x / 0.0


def main():
    helper(1.0)


main()
