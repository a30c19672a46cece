from pkg.runner import Runner, Reporter, Prefetcher


def start(loader, args):
    runner = Runner(1)
    log = Reporter()
    default = Prefetcher(loader)
    chosen = Prefetcher(loader, device="npu")
    placed = Prefetcher(loader, "cpu")
    spread = Prefetcher(*args)
    return runner, log, default, chosen, placed, spread
