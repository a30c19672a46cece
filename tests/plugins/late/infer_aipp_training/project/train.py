# Training only: the normalisation feeds the training loop, nothing is exported for inference.
import torch
import torchvision.datasets as datasets
import torchvision.transforms as transforms

normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
train_set = datasets.ImageFolder("data/train", transforms.Compose([
    transforms.RandomResizedCrop(224),
    transforms.ToTensor(),
    normalize,
]))
val_set = datasets.ImageFolder("data/val", transforms.Compose([
    transforms.Resize(256),
    transforms.CenterCrop(224),
    transforms.ToTensor(),
    normalize,
]))
model = torch.nn.Linear(3 * 224 * 224, 10)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for images, target in torch.utils.data.DataLoader(train_set, batch_size=8):
    loss = torch.nn.functional.cross_entropy(model(images.flatten(1)), target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
