a = a
b.c.d = e
_x.y = 1
lambda: (yield)
@dec
async def g(): await h(*a, **k)
