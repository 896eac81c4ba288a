// A push that arrives while the phone's page is in view buzzes and chimes once, as a real phone
// announces a notification (the page installed on a home screen gets no Web Push: that needs
// the Internet). Where the browser has no vibration, or holds sound back until a tap, the
// banner alone announces it.

/** The buzz: two short pulses. */
const PATTERN_MS = [120, 60, 120];
let audio = null;

export function alertPush() {
  if (document.visibilityState !== "visible") return;
  if (typeof navigator.vibrate === "function") navigator.vibrate(PATTERN_MS);
  chime();
}

/** Two rising tones, a fifth of a second in all, made on the spot (no sound file to fetch). */
function chime() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  try {
    audio = audio || new Context();
    if (audio.state === "suspended") audio.resume().catch(() => {});
    const start = audio.currentTime;
    [880, 1320].forEach((frequency, index) => {
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, start + index * 0.1);
      gain.gain.exponentialRampToValueAtTime(0.2, start + index * 0.1 + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + index * 0.1 + 0.1);
      tone.connect(gain).connect(audio.destination);
      tone.start(start + index * 0.1);
      tone.stop(start + index * 0.1 + 0.11);
    });
  } catch {
    // no sound: the banner still shows
  }
}
