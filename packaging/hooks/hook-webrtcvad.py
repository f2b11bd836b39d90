"""webrtcvad comes from the ``webrtcvad-wheels`` distribution; the contrib hook asks for ``webrtcvad`` metadata and fails."""

from PyInstaller.utils.hooks import copy_metadata

datas = copy_metadata("webrtcvad-wheels")
hiddenimports = ["_webrtcvad"]
