class A:
    """doc x.cuda()"""
    # x.cuda()
    s = f"{a}.cuda()"
