"""Train a tiny GAN."""
import argparse

from models.gan import Discriminator, Generator


def parse_args():
    parser = argparse.ArgumentParser(description="Train a tiny GAN")
    parser.add_argument("--dataset", type=str, default="mnist", choices=["mnist", "cifar10"],
                        help="dataset to train on")
    parser.add_argument("--lr", type=float, default=0.0002, help="adam learning rate")
    parser.add_argument("--n_epochs", type=int, default=200, help="number of epochs of training")
    parser.add_argument("--batch_size", type=int, default=64, help="size of the batches")
    parser.add_argument("--img_size", type=int, default=28, help="size of each image dimension")
    parser.add_argument("--conditional", action="store_true", help="train a conditional GAN")
    parser.add_argument("--n_classes", type=int, default=10, help="number of classes")
    return parser.parse_args()


def train(opt):
    generator = Generator(opt.img_size)
    discriminator = Discriminator(opt.img_size)
    for epoch in range(opt.n_epochs):
        loss = generator.step() + discriminator.step()
        print(f"epoch {epoch} loss {loss:.3f}")


if __name__ == "__main__":
    train(parse_args())
