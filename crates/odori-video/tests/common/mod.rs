//! Test soundtracks made in code, and an MP4's sound decoded back as a player plays it.
#![allow(dead_code)]

/// A 16-bit PCM WAV of `samples` (interleaved, −1..1).
pub fn wav(rate: u32, channels: u16, samples: &[f32]) -> Vec<u8> {
    let data: Vec<u8> = samples
        .iter()
        .flat_map(|s| ((s.clamp(-1.0, 1.0) * 32767.0) as i16).to_le_bytes())
        .collect();
    let mut w = Vec::new();
    w.extend_from_slice(b"RIFF");
    w.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
    w.extend_from_slice(b"WAVEfmt ");
    w.extend_from_slice(&16u32.to_le_bytes());
    w.extend_from_slice(&1u16.to_le_bytes());
    w.extend_from_slice(&channels.to_le_bytes());
    w.extend_from_slice(&rate.to_le_bytes());
    w.extend_from_slice(&(rate * 2 * channels as u32).to_le_bytes());
    w.extend_from_slice(&(2 * channels).to_le_bytes());
    w.extend_from_slice(&16u16.to_le_bytes());
    w.extend_from_slice(b"data");
    w.extend_from_slice(&(data.len() as u32).to_le_bytes());
    w.extend_from_slice(&data);
    w
}

/// An MP4's sound track decoded back (symphonia): (samples of the first channel from the
/// start of the media, the edit list's media start, which a player skips).
pub fn played_sound(file: &[u8]) -> (Vec<f32>, usize) {
    use odori_video::probe;
    use symphonia::core::audio::SampleBuffer;
    use symphonia::core::codecs::{
        CODEC_TYPE_AAC, CODEC_TYPE_MP3, CodecParameters, DecoderOptions,
    };
    use symphonia::core::formats::Packet;
    let tracks = probe::tracks(file);
    let sound = tracks
        .iter()
        .find(|t| &t.handler == b"soun")
        .expect("a sound track");
    let (_, skip) = sound.edit.expect("an edit list");
    let mut params = CodecParameters::new();
    let codec = if sound.decoder_config.is_empty() {
        CODEC_TYPE_MP3
    } else {
        CODEC_TYPE_AAC
    };
    params
        .for_codec(codec)
        .with_sample_rate(sound.timescale)
        .with_channels(
            symphonia::core::audio::Channels::FRONT_LEFT
                | symphonia::core::audio::Channels::FRONT_RIGHT,
        );
    if !sound.decoder_config.is_empty() {
        params.with_extra_data(sound.decoder_config.clone().into_boxed_slice());
    }
    let mut decoder = symphonia::default::get_codecs()
        .make(&params, &DecoderOptions::default())
        .unwrap();
    let per = if codec == CODEC_TYPE_MP3 { 1152 } else { 1024 };
    let mut out = Vec::new();
    for i in 0..sound.samples as usize {
        let data = sound.sample(file, i).unwrap();
        let packet = Packet::new_from_slice(0, (i * per) as u64, per as u64, data);
        match decoder.decode(&packet) {
            Ok(buf) => {
                let spec = *buf.spec();
                let mut s = SampleBuffer::<f32>::new(buf.capacity() as u64, spec);
                s.copy_interleaved_ref(buf);
                let ch = spec.channels.count();
                out.extend(s.samples().chunks_exact(ch).map(|f| f[0]));
            }
            // The run-up frames before a cut may lack their bit reservoir: silence, as a
            // player would give, keeps the timeline.
            Err(_) => out.extend(std::iter::repeat_n(0.0, per)),
        }
    }
    (out, skip as usize)
}

/// Where the burst starts: the first sample at half its peak.
pub fn onset(samples: &[f32]) -> usize {
    let peak = samples.iter().fold(0.0f32, |m, s| m.max(s.abs()));
    assert!(peak > 0.3, "the click was lost (peak {peak})");
    samples.iter().position(|s| s.abs() >= 0.5 * peak).unwrap()
}

/// `seconds` of stereo silence at `rate` with a 20 ms, 2 kHz burst starting at `click_s`
/// (interleaved).
pub fn click_song(rate: u32, seconds: f64, click_s: f64) -> Vec<f32> {
    let start = (click_s * rate as f64) as usize;
    (0..(seconds * rate as f64) as usize)
        .flat_map(|i| {
            let t = i as f32 / rate as f32;
            let on = (start..start + rate as usize / 50).contains(&i);
            let v = if on {
                0.8 * (t * 2000.0 * std::f32::consts::TAU).sin()
            } else {
                0.0
            };
            [v, v]
        })
        .collect()
}
