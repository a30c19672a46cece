"""ImageNet pre-processing: the training augmentation, then the evaluation transform."""
from torchvision import transforms

MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)


def build_transform(is_train, input_size=224):
    if is_train:
        return transforms.Compose([
            transforms.RandomResizedCrop(input_size),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            transforms.Normalize(MEAN, STD),
        ])
    return transforms.Compose([
        transforms.Resize(256),
        transforms.CenterCrop(224),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])


train_transform = transforms.Compose([
    transforms.RandomResize([400, 500, 600]),
    transforms.ToTensor(),
])
