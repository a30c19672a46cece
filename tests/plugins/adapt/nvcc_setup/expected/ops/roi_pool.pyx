def roi_pool(x, rois):
    return x
