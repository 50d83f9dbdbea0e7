"""Sample images from a trained generator."""
import argparse


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoint", required=True, help="path to generator weights")
    parser.add_argument("--n_samples", type=int, default=16, help="how many images")
    args = parser.parse_args()
    print(f"sampling {args.n_samples} images from {args.checkpoint}")


if __name__ == "__main__":
    main()
