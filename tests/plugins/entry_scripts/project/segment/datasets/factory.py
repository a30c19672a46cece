from .voc import voc

_sets = {'voc_2007_trainval': lambda: voc('trainval')}


def get_imdb(name):
    return _sets[name]()
