"""Content a user sends beside a message's text (images, audio, files, JSON): the checks every
surface applies before a run starts, and the file store's seam the run reads stored files through.
"""

from runyard.service.content.check import (
    ACCEPTED_MEDIA_TYPES,
    DEFAULT_MAX_INLINE_BYTES,
    ContentRefused,
    ContentRules,
    ContentTooLarge,
    FileStoreMissing,
    UnknownFile,
    check_content,
    media_type_pattern,
)
from runyard.service.content.files import FilesFor, FileStore
from runyard.service.content.produced import ProducedFiles, file_url

__all__ = [
    "ACCEPTED_MEDIA_TYPES",
    "DEFAULT_MAX_INLINE_BYTES",
    "ContentRefused",
    "ContentRules",
    "ContentTooLarge",
    "FileStore",
    "FileStoreMissing",
    "FilesFor",
    "ProducedFiles",
    "UnknownFile",
    "check_content",
    "file_url",
    "media_type_pattern",
]
