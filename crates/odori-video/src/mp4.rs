//! A minimal MP4 (ISO BMFF) writer: one H.264 video track and optionally one audio track,
//! samples written straight into `mdat` as they arrive, the index (`moov`) at the end.
//!
//! Only what ordinary players need: `ftyp`, `mdat` (64-bit size, patched when done), and
//! `moov` with per-track `stts`, `stss`, `stsc`, `stsz` and `co64`.

use std::io::{self, Seek, SeekFrom, Write};

/// Audio track contents: compressed frames (one MP4 sample each) and the edit that lines
/// them up with the picture.
#[derive(Debug, Clone)]
pub enum AudioTrack {
    /// MPEG audio frames (MP3) stored as they are: object type 0x6B in `esds`.
    Mpeg {
        sample_rate: u32,
        channels: u16,
        samples_per_frame: u32,
        frames: Vec<Vec<u8>>,
        edit: Edit,
    },
    /// AAC-LC access units (1024 samples each): object type 0x40, `config` being the
    /// AudioSpecificConfig.
    Aac {
        sample_rate: u32,
        channels: u16,
        config: Vec<u8>,
        frames: Vec<Vec<u8>>,
        edit: Edit,
    },
}

/// Which of the decoded samples play: the first `skip` (codec delay, and for an MP3 cut the
/// part of its first frames before the range) are skipped, then `duration` play. Written as
/// the track's edit list; the unit is the track's sample rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edit {
    pub skip: u64,
    pub duration: u64,
}

impl AudioTrack {
    pub fn sample_rate(&self) -> u32 {
        match self {
            AudioTrack::Mpeg { sample_rate, .. } | AudioTrack::Aac { sample_rate, .. } => {
                *sample_rate
            }
        }
    }

    pub fn channels(&self) -> u16 {
        match self {
            AudioTrack::Mpeg { channels, .. } | AudioTrack::Aac { channels, .. } => *channels,
        }
    }

    pub fn frames(&self) -> &[Vec<u8>] {
        match self {
            AudioTrack::Mpeg { frames, .. } | AudioTrack::Aac { frames, .. } => frames,
        }
    }

    pub fn edit(&self) -> Edit {
        match self {
            AudioTrack::Mpeg { edit, .. } | AudioTrack::Aac { edit, .. } => *edit,
        }
    }

    /// Decoded samples (per channel) in one frame.
    pub fn samples_per_frame(&self) -> u32 {
        match self {
            AudioTrack::Mpeg {
                samples_per_frame, ..
            } => *samples_per_frame,
            AudioTrack::Aac { .. } => 1024,
        }
    }

    /// Cut the track to at most `seconds` of sound (for a video that ended early); the frames
    /// no longer needed are dropped, keeping one past the end for the decoder's overlap.
    pub fn truncate(&mut self, seconds: f64) {
        let rate = self.sample_rate().max(1) as f64;
        let per = self.samples_per_frame().max(1) as u64;
        let (frames, edit) = match self {
            AudioTrack::Mpeg { frames, edit, .. } | AudioTrack::Aac { frames, edit, .. } => {
                (frames, edit)
            }
        };
        edit.duration = edit.duration.min((seconds.max(0.0) * rate).round() as u64);
        let keep = (edit.skip + edit.duration).div_ceil(per) as usize + 1;
        frames.truncate(keep);
    }
}

struct VideoSample {
    offset: u64,
    size: u32,
    key: bool,
}

/// Streams H.264 access units into an MP4 file.
pub struct Mp4Writer<W: Write + Seek> {
    out: W,
    width: u32,
    height: u32,
    /// Media timescale and per-frame duration (timescale / fps).
    timescale: u32,
    frame_duration: u32,
    sps: Option<Vec<u8>>,
    pps: Option<Vec<u8>>,
    samples: Vec<VideoSample>,
    mdat_start: u64,
    pos: u64,
}

fn be32(v: u32) -> [u8; 4] {
    v.to_be_bytes()
}

/// Build a box: size, type, payload.
fn bx(kind: &[u8; 4], payload: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(payload.len() + 8);
    v.extend_from_slice(&be32(payload.len() as u32 + 8));
    v.extend_from_slice(kind);
    v.extend_from_slice(payload);
    v
}

/// A full box (version 0 + flags).
fn full(kind: &[u8; 4], flags: u32, payload: &[u8]) -> Vec<u8> {
    let mut p = be32(flags & 0x00FF_FFFF).to_vec();
    p.extend_from_slice(payload);
    bx(kind, &p)
}

fn cat(parts: &[Vec<u8>]) -> Vec<u8> {
    parts.concat()
}

const MATRIX: [u32; 9] = [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000];

/// Split an Annex B byte stream into NAL units (without start codes).
pub fn nal_units(annex_b: &[u8]) -> Vec<&[u8]> {
    let mut units = Vec::new();
    let mut i = 0;
    let mut start = None;
    while i + 3 <= annex_b.len() {
        if annex_b[i] == 0 && annex_b[i + 1] == 0 && annex_b[i + 2] == 1 {
            if let Some(s) = start {
                let mut end = i;
                while end > s && annex_b[end - 1] == 0 {
                    end -= 1;
                }
                units.push(&annex_b[s..end]);
            }
            i += 3;
            start = Some(i);
        } else {
            i += 1;
        }
    }
    if let Some(s) = start {
        units.push(&annex_b[s..]);
    }
    units.retain(|u| !u.is_empty());
    units
}

impl<W: Write + Seek> Mp4Writer<W> {
    pub fn new(mut out: W, width: u32, height: u32, fps: u32) -> io::Result<Self> {
        let ftyp = bx(
            b"ftyp",
            &cat(&[
                b"isom".to_vec(),
                be32(0x200).to_vec(),
                b"isomiso2avc1mp41".to_vec(),
            ]),
        );
        out.write_all(&ftyp)?;
        let mdat_start = ftyp.len() as u64;
        // 64-bit mdat header: size 1, type, largesize (patched in `finish`).
        out.write_all(&be32(1))?;
        out.write_all(b"mdat")?;
        out.write_all(&0u64.to_be_bytes())?;
        let timescale = 90_000;
        Ok(Mp4Writer {
            out,
            width,
            height,
            timescale,
            frame_duration: timescale / fps.max(1),
            sps: None,
            pps: None,
            samples: Vec::new(),
            mdat_start,
            pos: mdat_start + 16,
        })
    }

    /// Add one encoded frame (Annex B: start-code separated NAL units). SPS and PPS are kept
    /// for the track header and also left in the stream (harmless, and helps decoders).
    pub fn write_frame(&mut self, annex_b: &[u8]) -> io::Result<()> {
        let mut key = false;
        let mut payload = Vec::with_capacity(annex_b.len() + 16);
        for nal in nal_units(annex_b) {
            match nal[0] & 0x1F {
                7 => {
                    self.sps.get_or_insert_with(|| nal.to_vec());
                }
                8 => {
                    self.pps.get_or_insert_with(|| nal.to_vec());
                }
                5 => key = true,
                _ => {}
            }
            payload.extend_from_slice(&be32(nal.len() as u32));
            payload.extend_from_slice(nal);
        }
        if payload.is_empty() {
            return Ok(()); // the encoder skipped this frame; the previous one holds
        }
        self.out.write_all(&payload)?;
        self.samples.push(VideoSample {
            offset: self.pos,
            size: payload.len() as u32,
            key,
        });
        self.pos += payload.len() as u64;
        Ok(())
    }

    pub fn frame_count(&self) -> usize {
        self.samples.len()
    }

    /// Write the audio (if any) and the index; returns the inner writer.
    pub fn finish(mut self, audio: Option<&AudioTrack>) -> io::Result<W> {
        // Audio data goes at the end of mdat; remember each chunk's offset.
        let mut audio_chunks: Vec<(u64, u32)> = Vec::new(); // (offset, samples in chunk)
        let mut audio_sizes: Vec<u32> = Vec::new();
        if let Some(a) = audio {
            for f in a.frames() {
                self.out.write_all(f)?;
                audio_chunks.push((self.pos, 1));
                audio_sizes.push(f.len() as u32);
                self.pos += f.len() as u64;
            }
        }
        let end = self.pos;
        self.out.seek(SeekFrom::Start(self.mdat_start + 8))?;
        self.out.write_all(&(end - self.mdat_start).to_be_bytes())?;
        self.out.seek(SeekFrom::Start(end))?;

        let n = self.samples.len() as u32;
        let video_duration = n as u64 * self.frame_duration as u64;
        let movie_timescale = 1000u32;
        let to_movie = |d: u64, ts: u32| (d * movie_timescale as u64 / ts.max(1) as u64) as u32;
        let video_ms = to_movie(video_duration, self.timescale);

        let mut traks = vec![self.video_trak(video_ms)];
        let mut duration_ms = video_ms;
        if let Some(a) = audio {
            let (rate, played) = (a.sample_rate(), a.edit().duration);
            let ms = to_movie(played, rate);
            duration_ms = duration_ms.max(ms);
            traks.push(audio_trak(a, ms, &audio_chunks, &audio_sizes));
        }
        let mut mvhd = Vec::new();
        mvhd.extend_from_slice(&[0; 8]); // creation, modification
        mvhd.extend_from_slice(&be32(movie_timescale));
        mvhd.extend_from_slice(&be32(duration_ms));
        mvhd.extend_from_slice(&be32(0x0001_0000)); // rate 1.0
        mvhd.extend_from_slice(&[0x01, 0x00]); // volume 1.0
        mvhd.extend_from_slice(&[0; 10]);
        for m in MATRIX {
            mvhd.extend_from_slice(&be32(m));
        }
        mvhd.extend_from_slice(&[0; 24]);
        mvhd.extend_from_slice(&be32(traks.len() as u32 + 1));
        let mut moov = full(b"mvhd", 0, &mvhd);
        for t in traks {
            moov.extend_from_slice(&t);
        }
        self.out.write_all(&bx(b"moov", &moov))?;
        self.out.flush()?;
        Ok(self.out)
    }

    fn video_trak(&self, duration_ms: u32) -> Vec<u8> {
        let n = self.samples.len() as u32;
        let sps = self.sps.clone().unwrap_or_default();
        let pps = self.pps.clone().unwrap_or_default();
        let mut avcc = vec![
            1,
            *sps.get(1).unwrap_or(&66),
            *sps.get(2).unwrap_or(&0),
            *sps.get(3).unwrap_or(&30),
            0xFF, // 4-byte NAL lengths
            0xE1, // one SPS
        ];
        avcc.extend_from_slice(&(sps.len() as u16).to_be_bytes());
        avcc.extend_from_slice(&sps);
        avcc.push(1);
        avcc.extend_from_slice(&(pps.len() as u16).to_be_bytes());
        avcc.extend_from_slice(&pps);
        let mut avc1 = vec![0; 6];
        avc1.extend_from_slice(&[0, 1]); // data reference index
        avc1.extend_from_slice(&[0; 16]);
        avc1.extend_from_slice(&(self.width as u16).to_be_bytes());
        avc1.extend_from_slice(&(self.height as u16).to_be_bytes());
        avc1.extend_from_slice(&be32(0x0048_0000));
        avc1.extend_from_slice(&be32(0x0048_0000));
        avc1.extend_from_slice(&[0; 4]);
        avc1.extend_from_slice(&[0, 1]); // frame count
        let mut name = [0u8; 32];
        name[0] = 5;
        name[1..6].copy_from_slice(b"odori");
        avc1.extend_from_slice(&name);
        avc1.extend_from_slice(&[0x00, 0x18, 0xFF, 0xFF]);
        avc1.extend_from_slice(&bx(b"avcC", &avcc));
        let stsd = full(b"stsd", 0, &cat(&[be32(1).to_vec(), bx(b"avc1", &avc1)]));
        let stts = full(
            b"stts",
            0,
            &cat(&[
                be32(1).to_vec(),
                be32(n).to_vec(),
                be32(self.frame_duration).to_vec(),
            ]),
        );
        let keys: Vec<u32> = (1..=n)
            .filter(|&i| self.samples[i as usize - 1].key)
            .collect();
        let mut stss = be32(keys.len() as u32).to_vec();
        for k in keys {
            stss.extend_from_slice(&be32(k));
        }
        let stsc = full(
            b"stsc",
            0,
            &cat(&[
                be32(1).to_vec(),
                be32(1).to_vec(),
                be32(1).to_vec(),
                be32(1).to_vec(),
            ]),
        );
        let mut stsz = cat(&[be32(0).to_vec(), be32(n).to_vec()]);
        let mut co64 = be32(n).to_vec();
        for s in &self.samples {
            stsz.extend_from_slice(&be32(s.size));
            co64.extend_from_slice(&s.offset.to_be_bytes());
        }
        let stbl = bx(
            b"stbl",
            &cat(&[
                stsd,
                stts,
                full(b"stss", 0, &stss),
                stsc,
                full(b"stsz", 0, &stsz),
                full(b"co64", 0, &co64),
            ]),
        );
        let vmhd = full(b"vmhd", 1, &[0; 8]);
        let minf = bx(b"minf", &cat(&[vmhd, dinf(), stbl]));
        let mdia = bx(
            b"mdia",
            &cat(&[
                mdhd(self.timescale, n as u64 * self.frame_duration as u64),
                hdlr(b"vide", "VideoHandler"),
                minf,
            ]),
        );
        bx(
            b"trak",
            &cat(&[tkhd(1, duration_ms, false, self.width, self.height), mdia]),
        )
    }
}

fn tkhd(id: u32, duration: u32, audio: bool, width: u32, height: u32) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend_from_slice(&[0; 8]);
    p.extend_from_slice(&be32(id));
    p.extend_from_slice(&[0; 4]);
    p.extend_from_slice(&be32(duration));
    p.extend_from_slice(&[0; 8]);
    p.extend_from_slice(&[0; 4]); // layer, alternate group
    p.extend_from_slice(if audio { &[0x01, 0x00] } else { &[0, 0] });
    p.extend_from_slice(&[0; 2]);
    for m in MATRIX {
        p.extend_from_slice(&be32(m));
    }
    p.extend_from_slice(&be32(width << 16));
    p.extend_from_slice(&be32(height << 16));
    full(b"tkhd", 3, &p) // enabled, in movie
}

fn mdhd(timescale: u32, duration: u64) -> Vec<u8> {
    let mut p = vec![0; 8];
    p.extend_from_slice(&be32(timescale));
    p.extend_from_slice(&be32(duration.min(u32::MAX as u64) as u32));
    p.extend_from_slice(&[0x55, 0xC4, 0, 0]); // language "und"
    full(b"mdhd", 0, &p)
}

fn hdlr(kind: &[u8; 4], name: &str) -> Vec<u8> {
    let mut p = vec![0; 4];
    p.extend_from_slice(kind);
    p.extend_from_slice(&[0; 12]);
    p.extend_from_slice(name.as_bytes());
    p.push(0);
    full(b"hdlr", 0, &p)
}

fn dinf() -> Vec<u8> {
    let url = full(b"url ", 1, &[]);
    bx(b"dinf", &full(b"dref", 0, &cat(&[be32(1).to_vec(), url])))
}

/// MPEG-4 descriptor: tag, length (4-byte form), body.
fn descriptor(tag: u8, body: &[u8]) -> Vec<u8> {
    let len = body.len() as u32;
    let mut v = vec![
        tag,
        0x80 | ((len >> 21) & 0x7F) as u8,
        0x80 | ((len >> 14) & 0x7F) as u8,
        0x80 | ((len >> 7) & 0x7F) as u8,
        (len & 0x7F) as u8,
    ];
    v.extend_from_slice(body);
    v
}

fn audio_trak(a: &AudioTrack, duration_ms: u32, chunks: &[(u64, u32)], sizes: &[u32]) -> Vec<u8> {
    let (rate, channels) = (a.sample_rate(), a.channels());
    let mut entry = vec![0; 6];
    entry.extend_from_slice(&[0, 1]);
    entry.extend_from_slice(&[0; 8]);
    entry.extend_from_slice(&channels.to_be_bytes());
    entry.extend_from_slice(&[0, 16, 0, 0, 0, 0]);
    entry.extend_from_slice(&be32(rate.min(65535) << 16));
    // ES descriptor: object type (0x6B MPEG-1/2 audio, 0x40 MPEG-4 audio), stream type audio,
    // buffer size, max and average bit rate, then the decoder's own configuration for AAC.
    let (object, config) = match a {
        AudioTrack::Mpeg { .. } => (0x6B, Vec::new()),
        AudioTrack::Aac { config, .. } => (0x40, descriptor(5, config)),
    };
    let mut dec = vec![object, 0x15, 0, 0x18, 0];
    dec.extend_from_slice(&be32(320_000));
    dec.extend_from_slice(&be32(0));
    dec.extend_from_slice(&config);
    let es = descriptor(
        3,
        &cat(&[vec![0, 0, 0], descriptor(4, &dec), descriptor(6, &[2])]),
    );
    entry.extend_from_slice(&full(b"esds", 0, &es));
    let n = a.frames().len() as u32;
    let per = a.samples_per_frame();
    let stts = cat(&[be32(1).to_vec(), be32(n).to_vec(), be32(per).to_vec()]);
    let mut stsz = cat(&[be32(0).to_vec(), be32(n).to_vec()]);
    for s in sizes {
        stsz.extend_from_slice(&be32(*s));
    }
    let total = n as u64 * per as u64;
    // stsc: runs of chunks with the same sample count.
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for (i, &(_, count)) in chunks.iter().enumerate() {
        if runs.last().is_none_or(|r| r.1 != count) {
            runs.push((i as u32 + 1, count));
        }
    }
    let mut stsc = be32(runs.len() as u32).to_vec();
    for (first, count) in runs {
        stsc.extend_from_slice(&cat(&[
            be32(first).to_vec(),
            be32(count).to_vec(),
            be32(1).to_vec(),
        ]));
    }
    let mut co64 = be32(chunks.len() as u32).to_vec();
    for (off, _) in chunks {
        co64.extend_from_slice(&off.to_be_bytes());
    }
    let stbl = bx(
        b"stbl",
        &cat(&[
            full(b"stsd", 0, &cat(&[be32(1).to_vec(), bx(b"mp4a", &entry)])),
            full(b"stts", 0, &stts),
            full(b"stsc", 0, &stsc),
            full(b"stsz", 0, &stsz),
            full(b"co64", 0, &co64),
        ]),
    );
    let smhd = full(b"smhd", 0, &[0; 4]);
    let minf = bx(b"minf", &cat(&[smhd, dinf(), stbl]));
    let mdia = bx(
        b"mdia",
        &cat(&[mdhd(rate, total), hdlr(b"soun", "SoundHandler"), minf]),
    );
    bx(
        b"trak",
        &cat(&[
            tkhd(2, duration_ms, true, 0, 0),
            edts(duration_ms, a.edit().skip),
            mdia,
        ]),
    )
}

/// An edit list of one entry: play `duration_ms` (movie time) of the media from `skip`
/// (media time), at normal rate. Players (QuickTime, browsers, ffmpeg, VLC) start the track's
/// sound there, which removes the codec delay.
fn edts(duration_ms: u32, skip: u64) -> Vec<u8> {
    let mut elst = be32(1).to_vec();
    elst.extend_from_slice(&be32(duration_ms));
    elst.extend_from_slice(&be32(skip.min(i32::MAX as u64) as u32));
    elst.extend_from_slice(&[0, 1, 0, 0]);
    bx(b"edts", &full(b"elst", 0, &elst))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_annex_b() {
        let s = [
            0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 1, 0x65, 4, 5,
        ];
        let u = nal_units(&s);
        assert_eq!(
            u,
            vec![&[0x67, 1, 2][..], &[0x68, 3][..], &[0x65, 4, 5][..]]
        );
    }

    #[test]
    fn audio_is_cut_to_a_shorter_video() {
        let edit = Edit {
            skip: 1105,
            duration: 44_100 * 3,
        };
        let mut mp3 = AudioTrack::Mpeg {
            sample_rate: 44100,
            channels: 2,
            samples_per_frame: 1152,
            frames: vec![vec![0; 4]; 200],
            edit,
        };
        mp3.truncate(0.5);
        assert_eq!(mp3.edit().duration, 22_050);
        // ceil((1105 + 22050) / 1152) = 21 frames hold the sound, plus one for the overlap.
        assert_eq!(mp3.frames().len(), 22);
        mp3.truncate(10.0);
        assert_eq!(mp3.edit().duration, 22_050, "truncate never lengthens");
    }
}
