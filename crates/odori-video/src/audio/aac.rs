//! Encoding a decoded soundtrack to AAC-LC in-process (Fraunhofer FDK AAC, compiled from the
//! source `fdk-aac-sys` ships), so a WAV becomes sound that every browser and player plays.

use super::AudioError;
use super::decode::Pcm;
use crate::mp4::{AudioTrack, Edit};
use fdk_aac::enc::{AudioObjectType, BitRate, ChannelMode, Encoder, EncoderParams, Transport};

/// Samples per channel in one AAC-LC access unit.
pub(crate) const FRAME: usize = 1024;

/// The rates AAC's sampling-frequency table has (the encoder refuses others).
const RATES: [u32; 12] = [
    96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000,
];

pub(crate) fn encode(pcm: Pcm) -> Result<AudioTrack, AudioError> {
    let fail =
        |what: &str, e: fdk_aac::enc::EncoderError| AudioError::Encode(format!("{what}: {e}"));
    if !RATES.contains(&pcm.sample_rate) {
        return Err(AudioError::Encode(format!(
            "{} Hz is not a rate AAC stores (44100 or 48000 are usual)",
            pcm.sample_rate
        )));
    }
    let stereo = pcm.channels == 2;
    let encoder = Encoder::new(EncoderParams {
        // 96 kbit/s per channel: transparent for music at 44.1/48 kHz (Apple and YouTube use
        // 128–256 kbit/s stereo).
        bit_rate: BitRate::Cbr(if stereo { 192_000 } else { 96_000 }),
        sample_rate: pcm.sample_rate,
        transport: Transport::Raw,
        channels: if stereo {
            ChannelMode::Stereo
        } else {
            ChannelMode::Mono
        },
        audio_object_type: AudioObjectType::Mpeg4LowComplexity,
    })
    .map_err(|e| fail("setting up", e))?;
    let info = encoder
        .info()
        .map_err(|e| fail("reading its configuration", e))?;
    let config = info.confBuf[..(info.confSize as usize).min(info.confBuf.len())].to_vec();
    let delay = info.nDelay as u64;
    let channels = pcm.channels as usize;
    let frames_in = pcm.samples.len() / channels;

    // The encoder holds back `delay` samples: feed silence after the song until every song
    // sample has come out in some access unit (FDK's flush call is not exposed by the crate).
    let mut input = pcm.samples;
    input.resize(input.len() + (delay as usize + 2 * FRAME) * channels, 0);
    let mut out = vec![0u8; info.maxOutBufBytes.max(8192) as usize];
    let mut frames = Vec::with_capacity(frames_in / FRAME + 4);
    let needed = (frames_in as u64 + delay).div_ceil(FRAME as u64) as usize;
    let mut at = 0;
    while frames.len() < needed && at < input.len() {
        let chunk = &input[at..(at + FRAME * channels).min(input.len())];
        let done = encoder
            .encode(chunk, &mut out)
            .map_err(|e| fail("encoding", e))?;
        if done.output_size > 0 {
            frames.push(out[..done.output_size].to_vec());
        }
        if done.input_consumed == 0 && done.output_size == 0 {
            break;
        }
        at += done.input_consumed;
    }
    Ok(AudioTrack::Aac {
        sample_rate: pcm.sample_rate,
        channels: pcm.channels,
        config,
        frames,
        edit: Edit {
            skip: delay,
            duration: frames_in as u64,
        },
    })
}
