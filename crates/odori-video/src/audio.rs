//! Reading the soundtrack: MP3 is kept as it is (its frames go into the MP4 untouched, which
//! every ordinary player plays); WAV becomes 16-bit PCM. Nothing here decodes MP3.

use crate::mp4::AudioTrack;

#[derive(Debug, thiserror::Error)]
pub enum AudioError {
    #[error("not a WAV or MP3 file")]
    Unknown,
    #[error("WAV: {0}")]
    Wav(&'static str),
    #[error("MP3: no MPEG audio frames found")]
    NoFrames,
}

/// Read a WAV or MP3 file's bytes into an audio track, cut to `start_s..start_s + len_s`
/// seconds (the rendered range).
pub fn track(bytes: &[u8], start_s: f64, len_s: f64) -> Result<AudioTrack, AudioError> {
    if bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WAVE") {
        wav(bytes, start_s, len_s)
    } else {
        mp3(bytes, start_s, len_s)
    }
}

fn wav(b: &[u8], start_s: f64, len_s: f64) -> Result<AudioTrack, AudioError> {
    let mut i = 12;
    let mut fmt = None;
    let mut data = None;
    while i + 8 <= b.len() {
        let id = &b[i..i + 4];
        let size = u32::from_le_bytes([b[i + 4], b[i + 5], b[i + 6], b[i + 7]]) as usize;
        let body = &b[i + 8..(i + 8).saturating_add(size).min(b.len())];
        match id {
            b"fmt " => fmt = Some(body),
            b"data" => data = Some(body),
            _ => {}
        }
        i = i + 8 + size + (size & 1);
    }
    let fmt = fmt.ok_or(AudioError::Wav("no fmt chunk"))?;
    let data = data.ok_or(AudioError::Wav("no data chunk"))?;
    if fmt.len() < 16 {
        return Err(AudioError::Wav("short fmt chunk"));
    }
    let u16_at = |o: usize| u16::from_le_bytes([fmt[o], fmt[o + 1]]);
    let format = u16_at(0);
    let channels = u16_at(2).max(1);
    let rate = u32::from_le_bytes([fmt[4], fmt[5], fmt[6], fmt[7]]);
    let bits = u16_at(14);
    // 1 = integer PCM, 3 = float, 0xFFFE = extensible (sub-format in the extension).
    let float = format == 3 || (format == 0xFFFE && fmt.get(24) == Some(&3));
    let bytes_per = (bits as usize).div_ceil(8);
    if rate == 0 || !(1..=4).contains(&bytes_per) || ![1, 3, 0xFFFE].contains(&format) {
        return Err(AudioError::Wav("unsupported sample format"));
    }
    let frame = bytes_per * channels as usize;
    let total = data.len() / frame;
    let first = ((start_s.max(0.0) * rate as f64) as usize).min(total);
    let last = ((first as f64 + len_s.max(0.0) * rate as f64) as usize).min(total);
    let mut out = Vec::with_capacity((last - first) * 2 * channels as usize);
    for s in data[first * frame..last * frame].chunks_exact(bytes_per) {
        let v: i16 = match (bytes_per, float) {
            (1, _) => ((s[0] as i16) - 128) << 8,
            (2, _) => i16::from_le_bytes([s[0], s[1]]),
            (3, _) => i16::from_le_bytes([s[1], s[2]]),
            (4, true) => {
                let f = f32::from_le_bytes([s[0], s[1], s[2], s[3]]);
                (f.clamp(-1.0, 1.0) * 32767.0) as i16
            }
            _ => i16::from_le_bytes([s[2], s[3]]),
        };
        out.extend_from_slice(&v.to_le_bytes());
    }
    Ok(AudioTrack::Pcm {
        sample_rate: rate,
        channels,
        data: out,
    })
}

/// One MPEG audio frame header, decoded.
struct Header {
    len: usize,
    rate: u32,
    channels: u16,
    samples: u32,
}

fn header(h: &[u8]) -> Option<Header> {
    if h.len() < 4 || h[0] != 0xFF || h[1] & 0xE0 != 0xE0 {
        return None;
    }
    let version = (h[1] >> 3) & 3; // 0 = 2.5, 2 = 2, 3 = 1
    let layer = (h[1] >> 1) & 3; // 1 = III, 2 = II, 3 = I
    let br_idx = (h[2] >> 4) as usize;
    let sr_idx = ((h[2] >> 2) & 3) as usize;
    let pad = ((h[2] >> 1) & 1) as usize;
    if version == 1 || layer == 0 || br_idx == 0 || br_idx == 15 || sr_idx == 3 {
        return None;
    }
    let v1 = version == 3;
    const BR_V1: [[u32; 15]; 3] = [
        [
            0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448,
        ],
        [
            0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384,
        ],
        [
            0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320,
        ],
    ];
    const BR_V2: [[u32; 15]; 2] = [
        [
            0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256,
        ],
        [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
    ];
    let layer_no = 4 - layer as usize; // 1, 2 or 3
    let kbps = if v1 {
        BR_V1[layer_no - 1][br_idx]
    } else {
        BR_V2[if layer_no == 1 { 0 } else { 1 }][br_idx]
    };
    let base = [44100, 48000, 32000][sr_idx];
    let rate = match version {
        3 => base,
        2 => base / 2,
        _ => base / 4,
    };
    let bps = kbps * 1000;
    let (len, samples) = match layer_no {
        1 => ((12 * bps / rate) as usize * 4 + pad * 4, 384),
        2 => ((144 * bps / rate) as usize + pad, 1152),
        _ if v1 => ((144 * bps / rate) as usize + pad, 1152),
        _ => ((72 * bps / rate) as usize + pad, 576),
    };
    let channels = if h[3] >> 6 == 3 { 1 } else { 2 };
    (len > 4).then_some(Header {
        len,
        rate,
        channels,
        samples,
    })
}

fn mp3(b: &[u8], start_s: f64, len_s: f64) -> Result<AudioTrack, AudioError> {
    let mut i = 0;
    // ID3v2 tag: "ID3", version, flags, 4 syncsafe size bytes.
    if b.starts_with(b"ID3") && b.len() >= 10 {
        let s = b[6..10]
            .iter()
            .fold(0usize, |acc, &x| (acc << 7) | (x & 0x7F) as usize);
        i = 10 + s;
    }
    let mut frames = Vec::new();
    let mut first: Option<Header> = None;
    while i + 4 <= b.len() {
        match header(&b[i..]) {
            Some(h) if i + h.len <= b.len() => {
                // A frame must agree with the first one (else it is a false sync in data).
                let ok = first
                    .as_ref()
                    .is_none_or(|f| f.rate == h.rate && f.samples == h.samples);
                if ok {
                    frames.push(b[i..i + h.len].to_vec());
                    i += h.len;
                    first.get_or_insert(h);
                    continue;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    let f = first.ok_or(AudioError::NoFrames)?;
    let per_s = f.rate as f64 / f.samples as f64;
    let skip = ((start_s.max(0.0) * per_s) as usize).min(frames.len());
    let take = (len_s.max(0.0) * per_s).ceil() as usize;
    let frames: Vec<Vec<u8>> = frames.into_iter().skip(skip).take(take).collect();
    if frames.is_empty() {
        return Err(AudioError::NoFrames);
    }
    Ok(AudioTrack::Mpeg {
        sample_rate: f.rate,
        channels: f.channels,
        samples_per_frame: f.samples,
        frames,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wav_16_bit_cut() {
        let mut w = Vec::new();
        let data: Vec<u8> = (0..8000i16).flat_map(|v| v.to_le_bytes()).collect();
        w.extend_from_slice(b"RIFF");
        w.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
        w.extend_from_slice(b"WAVEfmt ");
        w.extend_from_slice(&16u32.to_le_bytes());
        w.extend_from_slice(&1u16.to_le_bytes());
        w.extend_from_slice(&1u16.to_le_bytes());
        w.extend_from_slice(&8000u32.to_le_bytes());
        w.extend_from_slice(&16000u32.to_le_bytes());
        w.extend_from_slice(&2u16.to_le_bytes());
        w.extend_from_slice(&16u16.to_le_bytes());
        w.extend_from_slice(b"data");
        w.extend_from_slice(&(data.len() as u32).to_le_bytes());
        w.extend_from_slice(&data);
        match track(&w, 0.5, 0.25).unwrap() {
            AudioTrack::Pcm {
                data,
                sample_rate,
                channels,
            } => {
                assert_eq!((sample_rate, channels), (8000, 1));
                assert_eq!(data.len(), 2000 * 2);
                assert_eq!(i16::from_le_bytes([data[0], data[1]]), 4000);
            }
            _ => panic!(),
        }
    }

    #[test]
    fn mp3_frames() {
        // MPEG-1 layer III, 128 kbps, 44.1 kHz, no padding: 417-byte frames.
        let mut b = b"junk".to_vec();
        for _ in 0..50 {
            let mut f = vec![0xFF, 0xFB, 0x90, 0x00];
            f.resize(417, 0x55);
            b.extend_from_slice(&f);
        }
        match track(&b, 0.0, 100.0).unwrap() {
            AudioTrack::Mpeg {
                frames,
                sample_rate,
                samples_per_frame,
                ..
            } => {
                assert_eq!(
                    (frames.len(), sample_rate, samples_per_frame),
                    (50, 44100, 1152)
                );
            }
            _ => panic!(),
        }
        assert!(track(b"nothing here", 0.0, 1.0).is_err());
    }
}
