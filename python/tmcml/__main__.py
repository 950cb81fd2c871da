"""python -m tmcml COMMAND: the package's commands (today: fit)."""

import sys


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m tmcml fit MODEL DATA [-o DIR] [--no-plot]\n"
              "  fit  fit layers to measured reflectance (python -m tmcml fit --help; "
              "docs/fit.md)")
        return 0 if argv else 2
    if argv[0] != "fit":
        print("python -m tmcml: unknown command %r (known: fit)" % argv[0], file=sys.stderr)
        return 2
    from .fit_command import main as fit_main
    return fit_main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
