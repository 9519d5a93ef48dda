//! Reading an MP4 back: track kinds, sample counts and durations, and decoding a video frame,
//! so tests (and users) can check what `odori render` wrote without ffmpeg.

use openh264::OpenH264API;
use openh264::decoder::{Decoder, DecoderConfig};
use openh264::formats::YUVSource;

/// One track's summary.
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    pub handler: [u8; 4],
    /// The sample entry type (`avc1`, `mp4a`, `sowt`).
    pub codec: [u8; 4],
    pub timescale: u32,
    pub duration: u64,
    pub samples: u32,
    pub width: u16,
    pub height: u16,
    /// The first edit-list entry: (segment duration in movie time, media time it starts at).
    pub edit: Option<(u32, i64)>,
    /// An audio track's decoder configuration from `esds` (AAC's AudioSpecificConfig).
    pub decoder_config: Vec<u8>,
    /// The sync samples (`stss`, numbered from 1); `None` when the track has no `stss`
    /// (every sample is one).
    pub sync_samples: Option<Vec<u32>>,
    /// The time-to-sample runs (`stts`): (samples, each one's duration in the timescale).
    pub time_runs: Vec<(u32, u32)>,
    sizes: Vec<u32>,
    offsets: Vec<u64>,
    avcc: Vec<u8>,
}

impl Track {
    pub fn seconds(&self) -> f64 {
        self.duration as f64 / self.timescale.max(1) as f64
    }

    /// The `avcC` box's body (an H.264 track's SPS and PPS); empty for other tracks.
    pub fn avcc(&self) -> &[u8] {
        &self.avcc
    }

    /// Sample `index`'s bytes in `file`.
    pub fn sample<'a>(&self, file: &'a [u8], index: usize) -> Option<&'a [u8]> {
        let (off, size) = (
            *self.offsets.get(index)? as usize,
            *self.sizes.get(index)? as usize,
        );
        file.get(off..off + size)
    }
}

/// An MPEG-4 descriptor at `d`: (tag, body, rest).
fn descriptor(d: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let tag = *d.first()?;
    let mut len = 0usize;
    let mut i = 1;
    loop {
        let b = *d.get(i)?;
        len = (len << 7) | (b & 0x7F) as usize;
        i += 1;
        if b & 0x80 == 0 || i > 4 {
            break;
        }
    }
    let body = d.get(i..i + len)?;
    Some((tag, body, &d[i + len..]))
}

/// DecoderSpecificInfo (tag 5) inside an `esds` body: ES_Descriptor → DecoderConfig → info.
fn esds_config(esds: &[u8]) -> Vec<u8> {
    fn find(mut d: &[u8], tag: u8) -> Option<&[u8]> {
        while let Some((t, body, rest)) = descriptor(d) {
            if t == tag {
                return Some(body);
            }
            d = rest;
        }
        None
    }
    esds.get(4..)
        .and_then(|d| find(d, 3))
        .and_then(|es| find(es.get(3..)?, 4))
        .and_then(|dc| find(dc.get(13..)?, 5))
        .map(<[u8]>::to_vec)
        .unwrap_or_default()
}

fn boxes(data: &[u8]) -> Vec<([u8; 4], &[u8])> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 8 <= data.len() {
        let size = u32::from_be_bytes(data[i..i + 4].try_into().unwrap()) as u64;
        let kind: [u8; 4] = data[i + 4..i + 8].try_into().unwrap();
        let (hdr, size) = match size {
            1 if i + 16 <= data.len() => (
                16,
                u64::from_be_bytes(data[i + 8..i + 16].try_into().unwrap()),
            ),
            0 => (8, (data.len() - i) as u64),
            s => (8, s),
        };
        let end = (i as u64 + size).min(data.len() as u64) as usize;
        if size < hdr as u64 || end <= i {
            break;
        }
        out.push((kind, &data[i + hdr..end]));
        i = end;
    }
    out
}

fn child<'a>(data: &'a [u8], kind: &[u8; 4]) -> Option<&'a [u8]> {
    boxes(data).into_iter().find(|b| &b.0 == kind).map(|b| b.1)
}

fn be32(d: &[u8], o: usize) -> u32 {
    d.get(o..o + 4)
        .map_or(0, |s| u32::from_be_bytes(s.try_into().unwrap()))
}

/// The tracks of an MP4 file's bytes.
pub fn tracks(file: &[u8]) -> Vec<Track> {
    let Some(moov) = child(file, b"moov") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (kind, trak) in boxes(moov) {
        if &kind != b"trak" {
            continue;
        }
        let Some(mdia) = child(trak, b"mdia") else {
            continue;
        };
        let mdhd = child(mdia, b"mdhd").unwrap_or(&[]);
        let hdlr = child(mdia, b"hdlr").unwrap_or(&[]);
        let stbl = child(mdia, b"minf")
            .and_then(|m| child(m, b"stbl"))
            .unwrap_or(&[]);
        let stsd = child(stbl, b"stsd").unwrap_or(&[]);
        let entry = stsd.get(8..).map(boxes).unwrap_or_default();
        let (codec, body) = entry.first().copied().unwrap_or(([0; 4], &[]));
        let stsz = child(stbl, b"stsz").unwrap_or(&[]);
        let n = be32(stsz, 8);
        let fixed = be32(stsz, 4);
        let sizes: Vec<u32> = if fixed != 0 {
            vec![fixed; n as usize]
        } else {
            (0..n as usize).map(|i| be32(stsz, 12 + 4 * i)).collect()
        };
        // Chunk offsets (co64 or stco), then each sample's offset through stsc's runs.
        let chunks: Vec<u64> = match (child(stbl, b"co64"), child(stbl, b"stco")) {
            (Some(c), _) => (0..be32(c, 4) as usize)
                .map(|i| {
                    c.get(8 + 8 * i..16 + 8 * i)
                        .map_or(0, |s| u64::from_be_bytes(s.try_into().unwrap()))
                })
                .collect(),
            (None, Some(c)) => (0..be32(c, 4) as usize)
                .map(|i| be32(c, 8 + 4 * i) as u64)
                .collect(),
            _ => Vec::new(),
        };
        let stsc = child(stbl, b"stsc").unwrap_or(&[]);
        let runs: Vec<(usize, usize)> = (0..be32(stsc, 4) as usize)
            .map(|i| {
                let first = be32(stsc, 8 + 12 * i) as usize;
                (first.max(1) - 1, be32(stsc, 12 + 12 * i) as usize)
            })
            .collect();
        let mut offsets = Vec::with_capacity(sizes.len());
        let mut sample = 0;
        for (ci, &chunk) in chunks.iter().enumerate() {
            let per = runs.iter().rev().find(|r| r.0 <= ci).map_or(1, |r| r.1);
            let mut at = chunk;
            for _ in 0..per {
                let Some(&size) = sizes.get(sample) else {
                    break;
                };
                offsets.push(at);
                at += size as u64;
                sample += 1;
            }
        }
        let avcc = if &codec == b"avc1" {
            body.get(78..)
                .and_then(|b| child(b, b"avcC"))
                .unwrap_or(&[])
                .to_vec()
        } else {
            Vec::new()
        };
        let u16_at = |o: usize| {
            body.get(o..o + 2)
                .map_or(0, |s| u16::from_be_bytes([s[0], s[1]]))
        };
        let edit = child(trak, b"edts")
            .and_then(|e| child(e, b"elst"))
            .filter(|elst| be32(elst, 4) > 0)
            .map(|elst| (be32(elst, 8), be32(elst, 12) as i32 as i64));
        let decoder_config = if &codec == b"mp4a" {
            body.get(28..)
                .and_then(|b| child(b, b"esds"))
                .map(esds_config)
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        let sync_samples = child(stbl, b"stss").map(|stss| {
            (0..be32(stss, 4) as usize)
                .map(|i| be32(stss, 8 + 4 * i))
                .collect()
        });
        let time_runs = child(stbl, b"stts").map_or_else(Vec::new, |stts| {
            (0..be32(stts, 4) as usize)
                .map(|i| (be32(stts, 8 + 8 * i), be32(stts, 12 + 8 * i)))
                .collect()
        });
        out.push(Track {
            edit,
            decoder_config,
            sync_samples,
            time_runs,
            handler: hdlr.get(8..12).map_or([0; 4], |s| s.try_into().unwrap()),
            codec,
            timescale: be32(mdhd, 12),
            duration: be32(mdhd, 16) as u64,
            samples: n,
            width: if &codec == b"avc1" { u16_at(24) } else { 0 },
            height: if &codec == b"avc1" { u16_at(26) } else { 0 },
            sizes,
            offsets,
            avcc,
        });
    }
    out
}

/// Decode video frames `0..=index` of `track` and return frame `index` as RGBA8 with its
/// size. OpenH264 decodes the Constrained Baseline streams the built-in encoder writes, not
/// the High-profile (B-frame) streams of the ffmpeg path.
pub fn decode_frame(
    file: &[u8],
    track: &Track,
    index: usize,
) -> Result<(u32, u32, Vec<u8>), String> {
    let avcc = &track.avcc;
    if avcc.len() < 8 {
        return Err("no avcC".into());
    }
    let mut annex = Vec::new();
    // SPS and PPS from avcC, as Annex B.
    let sps_len = u16::from_be_bytes([avcc[6], avcc[7]]) as usize;
    let sps = avcc.get(8..8 + sps_len).ok_or("bad avcC")?;
    let pps_len_at = 9 + sps_len;
    let pps_len = avcc
        .get(pps_len_at..pps_len_at + 2)
        .map(|s| u16::from_be_bytes([s[0], s[1]]) as usize)
        .ok_or("bad avcC")?;
    let pps = avcc
        .get(pps_len_at + 2..pps_len_at + 2 + pps_len)
        .ok_or("bad avcC")?;
    for p in [sps, pps] {
        annex.extend_from_slice(&[0, 0, 0, 1]);
        annex.extend_from_slice(p);
    }
    let mut decoder = Decoder::with_api_config(OpenH264API::from_source(), DecoderConfig::new())
        .map_err(|e| e.to_string())?;
    let _ = decoder.decode(&annex);
    let mut last = None;
    for i in 0..=index.min(track.offsets.len().saturating_sub(1)) {
        let (off, size) = (track.offsets[i] as usize, track.sizes[i] as usize);
        let sample = file.get(off..off + size).ok_or("sample outside file")?;
        let mut packet = Vec::new();
        let mut j = 0;
        while j + 4 <= sample.len() {
            let n = u32::from_be_bytes(sample[j..j + 4].try_into().unwrap()) as usize;
            packet.extend_from_slice(&[0, 0, 0, 1]);
            packet.extend_from_slice(sample.get(j + 4..j + 4 + n).ok_or("bad NAL length")?);
            j += 4 + n;
        }
        if let Some(yuv) = decoder.decode(&packet).map_err(|e| e.to_string())? {
            let (w, h) = yuv.dimensions();
            let mut rgba = vec![0; w * h * 4];
            yuv.write_rgba8(&mut rgba);
            last = Some((w as u32, h as u32, rgba));
        }
    }
    last.ok_or_else(|| "no frame decoded".into())
}
