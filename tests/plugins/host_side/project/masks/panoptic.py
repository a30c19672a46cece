# Modelled on a panoptic post-processor: the segment ids are drawn into a PIL image, read
# back into a tensor built on the CPU from the image's bytes, and the areas are counted there.
import torch
from PIL import Image


def rgb2id(color):
    return color[..., 0] + 256 * color[..., 1]


def panoptic_areas(outputs, height, width):
    for masks, scores in outputs:
        m_id = masks.softmax(-1)
        m_id = m_id.argmax(-1).view(height, width)
        seg_img = Image.fromarray(m_id.cpu().numpy())
        np_seg_img = torch.ByteTensor(torch.ByteStorage.from_buffer(seg_img.tobytes())).view(height, width, 3).numpy()
        m_id = torch.from_numpy(rgb2id(np_seg_img))
        area = []
        for i in range(len(scores)):
            area.append(m_id.eq(i).sum().item())
        yield area


def typed_constructors(rows, buf):
    for row in rows:
        counts = torch.LongTensor(row)
        print(counts.sum().item())
        print(torch.FloatTensor(row).mean().item())
        print(torch.DoubleTensor(row)[0].item())
        raw = torch.frombuffer(buf, dtype=torch.uint8)
        print(raw.tolist())
        listed = torch.as_tensor(row, dtype=torch.float32)
        print(listed.max().item())
        print(torch.tensor(row).argmax().item())


def device_constructors(rows):
    for row in rows:
        print(torch.cuda.FloatTensor(row).sum().item())
        print(torch.FloatTensor(row).cuda().sum().item())
        print(torch.LongTensor(row).type(torch.cuda.LongTensor).tolist())
        print(torch.as_tensor(row, device="cuda").max().item())
        moved = torch.from_numpy(row)
        print(moved.item())
        moved = moved.cuda()


def rebound_names(rows, ready):
    for row in rows:
        if ready:
            picked = torch.from_numpy(row)
        else:
            picked = row.cuda()
        print(picked.item())
        best = torch.from_numpy(row)
        print([best.item() for best in row.cuda()])
        print(best.item())


def carried_names(rows):
    acc = torch.from_numpy(rows[0])
    for row in rows:
        print(acc.item())
        acc = row.cuda()
        moved = torch.from_numpy(row)
        moved = moved.cuda()
        print(moved.item())
