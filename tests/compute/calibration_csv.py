"""What the calibration-table checks of tests/compute/ share: reading a table (kernels/README.md,
"Calibration table format") and failing a check with its message. Standard library only."""


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def read_table(path):
    """(the header's comment lines, the column names, the rows as dicts with their numbers as floats)"""
    header, rows, columns = [], [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                if columns is None:
                    header.append(line)
                continue
            if columns is None:
                columns = line.split(",")
                continue
            values = dict(zip(columns, line.split(",")))
            for key in ("m", "n", "k", "batch", "time_s", "flops", "bytes"):
                values[key] = float(values[key])
            rows.append(values)
    return header, columns, rows
