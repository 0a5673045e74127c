"""The PowerPC test guest as files, made at test time: its TT6 / TT6E /
FULL traces (make_tt6_fixtures runs it under Unicorn) and an ELF of its
image, written here from tests/formats_tt6/guest/guest_image.inc (the
checked-in image and symbol addresses): ELF32 big-endian, EM_PPC, one
PT_LOAD segment at the image's base, no sections - what `--program`
needs to serve code bytes the traces lack."""
import os
import re
import struct
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
IMAGE_INC = os.path.join(HERE, "..", "formats_tt6", "guest", "guest_image.inc")


def read_image(inc=IMAGE_INC):
    """(base, bytes, {symbol: address}) from guest_image.inc."""
    text = open(inc).read()
    syms = {m.group(1): int(m.group(2), 16) for m in re.finditer(r"constexpr uint32_t (k\w+) = (0x[0-9a-fA-F]+);", text)}
    body = text[text.index("kGuestImage[] = {"):]
    data = bytes(int(x, 16) for x in re.findall(r"0x([0-9a-fA-F]{2})\b", body))
    return syms["kGuestBase"], data, syms


def write_elf(path, base, image, entry):
    ehsize, phentsize, offset = 52, 32, 0x100
    ident = b"\x7fELF" + bytes([1, 2, 1, 0]) + bytes(8)  # ELFCLASS32, ELFDATA2MSB, EV_CURRENT
    eh = ident + struct.pack(">HHIIIIIHHHHHH", 2, 20, 1, entry, ehsize, 0, 0, ehsize, phentsize, 1, 0, 0, 0)
    ph = struct.pack(">IIIIIIII", 1, offset, base, base, len(image), len(image), 7, 0x100)  # PT_LOAD, RWX
    blob = eh + ph
    blob += bytes(offset - len(blob)) + image
    with open(path, "wb") as f:
        f.write(blob)


def make_guest_files(make_fixtures, work):
    """Writes guest.tt6, guest.tt6e, guest.full and guest.elf into work;
    returns ({name: path}, symbols)."""
    os.makedirs(work, exist_ok=True)
    r = subprocess.run([make_fixtures, work], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise SystemExit("make_tt6_fixtures failed (%d): %s" % (r.returncode, r.stderr))
    base, image, syms = read_image()
    elf = os.path.join(work, "guest.elf")
    write_elf(elf, base, image, base)
    files = {n: os.path.join(work, "guest." + n) for n in ("tt6", "tt6e", "full")}
    files["elf"] = elf
    return files, syms


def branch_sites(base, image, target=None):
    """Scans the image for PowerPC I-form branches (primary opcode 18):
    [(pc, word, target, link)] for those reaching `target` (all if None);
    and the pcs of every bctrl. Independent of the engine's classifier."""
    sites, bctrl = [], []
    for off in range(0, len(image) - 3, 4):
        w = int.from_bytes(image[off:off + 4], "big")
        pc = base + off
        if w == 0x4E800421:
            bctrl.append(pc)
        if w >> 26 != 18:
            continue
        li = w & 0x03FFFFFC
        if li & 0x02000000:
            li -= 0x04000000
        dest = (li if w & 2 else pc + li) & 0xFFFFFFFF
        if target is None or dest == target:
            sites.append((pc, w, dest, bool(w & 1)))
    return sites, bctrl
