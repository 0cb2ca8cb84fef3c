"""``tf.data.image_folder``: image files from a directory, decoded lazily (needs Pillow).

Not in TF.js (whose images come from ``tf.browser.fromPixels``); it follows Keras's
``image_dataset_from_directory`` layout: one subdirectory per class, or the images
directly in the directory (no labels). Images become int32 tensors ``[height, width,
channels]`` with values 0-255, as ``fromPixels`` gives them.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from ..ops.creation import tensor
from ._structure import END
from .dataset import Dataset
from .iterators import LazyIterator

__all__ = ["ImageFolderDataset", "image_folder"]

_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".webp", ".tif", ".tiff")
_MODES = {"rgb": ("RGB", 3), "rgba": ("RGBA", 4), "grayscale": ("L", 1)}


def _pillow() -> Any:
    try:
        from PIL import Image
    except ImportError:
        raise ImportError(
            "tf.data.image_folder() needs Pillow to decode images: pip install pillow"
        ) from None
    return Image


def _images_in(directory: str, extensions: tuple[str, ...]) -> list[str]:
    return sorted(
        os.path.join(directory, name)
        for name in os.listdir(directory)
        if name.lower().endswith(extensions) and os.path.isfile(os.path.join(directory, name))
    )


class ImageFolderDataset(Dataset):
    """Images of a directory tree; see :func:`image_folder`."""

    def __init__(
        self,
        directory: Any,
        image_size: tuple[int, int] | None = None,
        color_mode: str = "rgb",
        class_names: list[str] | None = None,
        extensions: tuple[str, ...] = _EXTENSIONS,
    ):
        self._image = _pillow()
        directory = os.fspath(directory)
        if not os.path.isdir(directory):
            raise InvalidArgumentError(f"image_folder(): {directory!r} is not a directory")
        if color_mode not in _MODES:
            raise InvalidArgumentError(
                f"image_folder(): color_mode must be one of {', '.join(_MODES)}, got {color_mode!r}"
            )
        if image_size is not None:
            if len(image_size) != 2 or any(int(s) <= 0 for s in image_size):
                raise InvalidArgumentError(
                    f"image_folder(): image_size must be (height, width), got {image_size!r}"
                )
            image_size = (int(image_size[0]), int(image_size[1]))
        self.directory = directory
        self.image_size = image_size
        self.color_mode = color_mode
        extensions = tuple(e.lower() for e in extensions)
        if class_names is None:
            subdirs = sorted(
                d for d in os.listdir(directory) if os.path.isdir(os.path.join(directory, d))
            )
            class_names = [d for d in subdirs if _images_in(os.path.join(directory, d), extensions)]
        else:
            for name in class_names:
                if not os.path.isdir(os.path.join(directory, name)):
                    raise InvalidArgumentError(
                        f"image_folder(): class {name!r} has no directory in {directory!r}"
                    )
        self.class_names: list[str] | None = list(class_names) or None
        files: list[tuple[str, int | None]] = []
        if self.class_names:
            for label, name in enumerate(self.class_names):
                files += [(p, label) for p in _images_in(os.path.join(directory, name), extensions)]
        else:
            files = [(p, None) for p in _images_in(directory, extensions)]
        if not files:
            raise InvalidArgumentError(f"image_folder(): no image files found in {directory!r}")
        self.files = files
        self.size = len(files)

    def load(self, path: str) -> Any:
        """Decodes one image file into an int32 tensor ``[height, width, channels]``."""
        mode, channels = _MODES[self.color_mode]
        with self._image.open(path) as img:
            img = img.convert(mode)
            if self.image_size is not None:
                height, width = self.image_size
                img = img.resize((width, height), self._image.BILINEAR)
            array = np.asarray(img, dtype=np.int32).reshape(img.size[1], img.size[0], channels)
        return tensor(array)

    def iterator(self) -> LazyIterator:
        return _ImageIterator(self)


class _ImageIterator(LazyIterator):
    def __init__(self, dataset: ImageFolderDataset):
        self.dataset = dataset
        self.index = 0

    def summary(self) -> str:
        return f"Images in {self.dataset.directory}"

    def _next(self) -> Any:
        ds = self.dataset
        if self.index >= len(ds.files):
            return END
        path, label = ds.files[self.index]
        self.index += 1
        image = ds.load(path)
        return image if label is None else {"xs": image, "ys": label}


def image_folder(
    directory: Any,
    image_size: tuple[int, int] | None = None,
    color_mode: str = "rgb",
    class_names: list[str] | None = None,
    extensions: tuple[str, ...] = _EXTENSIONS,
) -> ImageFolderDataset:
    """Images from ``directory``, decoded when the stream reaches them (put a ``prefetch``
    after it to decode ahead on a thread). With one subdirectory per class (sorted names,
    or ``class_names``), elements are ``{'xs': image, 'ys': class_index}``; with the images
    directly in ``directory``, elements are the images. ``image_size=(height, width)``
    resizes (bilinear); ``color_mode`` is ``'rgb'``, ``'rgba'`` or ``'grayscale'``.
    The dataset's ``class_names`` lists the classes. Needs Pillow.
    """
    return ImageFolderDataset(directory, image_size, color_mode, class_names, extensions)
