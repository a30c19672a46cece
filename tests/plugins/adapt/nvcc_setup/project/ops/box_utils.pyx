def box_area(b):
    return (b[2] - b[0]) * (b[3] - b[1])
