"""Generator and discriminator of the toy GAN."""


class Generator:
    """Maps noise to images."""

    def __init__(self, img_size: int, latent_dim: int = 100):
        self.img_size = img_size
        self.latent_dim = latent_dim

    def step(self) -> float:
        """One optimisation step; returns the generator loss."""
        return 0.5


class Discriminator:
    """Scores images as real or fake."""

    def __init__(self, img_size: int):
        self.img_size = img_size

    def step(self) -> float:
        """One optimisation step; returns the discriminator loss."""
        return 0.5


def count_parameters(model) -> int:
    """Number of trainable parameters (toy: always zero)."""
    return 0
