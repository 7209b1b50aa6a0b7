# Generated from clients/openapi.json by stack/clients.ts (datamodel-code-generator): do not edit.

from __future__ import annotations

from typing import Any, Literal, TypeAlias

from typing_extensions import NotRequired, TypedDict


class ListenSessionMessage(TypedDict):
    type: Literal['session']
    id: str
    language: str | None
    encoding: Literal['pcm_s16le', 'opus']
    sample_rate: int
    keep_audio: bool
    request_id: str


class ListenPartialMessage(TypedDict):
    type: Literal['partial']
    seq: int
    start: float
    end: float
    text: str
    language: str


class ListenFinalMessage(TypedDict):
    type: Literal['final']
    seq: int
    start: float
    end: float
    text: str
    language: str


class ListenClosedMessage(TypedDict):
    type: Literal['closed']
    audio_seconds: float
    credits_charged: int


class ErrorObjectDetails(TypedDict):
    detail: str


class ErrorObject(TypedDict):
    code: Literal['INVALID_REQUEST', 'INVALID_URL', 'UNSUPPORTED_SOURCE', 'UNSAFE_URL', 'INVALID_CURSOR', 'CAPABILITY_UNAVAILABLE', 'IDEMPOTENCY_CONFLICT', 'UNAUTHENTICATED', 'FORBIDDEN', 'EMAIL_UNVERIFIED', 'NOT_FOUND', 'INSUFFICIENT_BALANCE', 'PLAN_REQUIRED', 'BUDGET_EXCEEDED', 'JOB_NOT_RETRYABLE', 'CANCELLATION_NOT_ALLOWED', 'CONFLICT', 'BAD_REQUEST', 'HEADERS_TOO_LARGE', 'UPGRADE_REQUIRED', 'METHOD_NOT_ALLOWED', 'UNSUPPORTED_ENCODING', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'RANGE_NOT_SATISFIABLE', 'RATE_LIMITED', 'SOURCE_NOT_FOUND', 'SOURCE_PRIVATE', 'SOURCE_AUTH_REQUIRED', 'SOURCE_REGION_RESTRICTED', 'NO_CAPTIONS', 'LANGUAGE_UNAVAILABLE', 'LANGUAGE_UNSUPPORTED', 'NO_SPEECH', 'NO_AUDIO', 'INVALID_MEDIA', 'UNSUPPORTED_MEDIA', 'DURATION_LIMIT_EXCEEDED', 'FILE_TOO_LARGE', 'TIMESTAMPS_UNAVAILABLE', 'CHAPTERS_UNAVAILABLE', 'TRANSLATION_UNAVAILABLE', 'PROVIDER_REJECTED', 'SOURCE_RATE_LIMITED', 'SOURCE_BLOCKED', 'SOURCE_TIMEOUT', 'SOURCE_CHANGED', 'PROVIDER_UNAVAILABLE', 'STORAGE_UNAVAILABLE', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR']
    message: str
    retryable: bool
    retry_after_seconds: NotRequired[int]
    details: NotRequired[ErrorObjectDetails]


class ListenStopMessage(TypedDict, closed=True):
    type: Literal['stop']


class CapabilitiesVideosite(TypedDict):
    enabled: bool
    captions_only: bool
    auto: bool
    transcribe: bool
    social_acquisition_fee: bool


class CapabilitiesShortvideo(TypedDict):
    enabled: bool
    captions_only: bool
    auto: bool
    transcribe: bool
    social_acquisition_fee: bool


class CapabilitiesPhotosocial(TypedDict):
    enabled: bool
    captions_only: bool
    auto: bool
    transcribe: bool
    social_acquisition_fee: bool
    native_captions: str


class CapabilitiesUpload(TypedDict):
    enabled: bool
    captions_only: bool
    auto: bool
    transcribe: bool
    social_acquisition_fee: bool


class CapabilitiesDirect(TypedDict):
    enabled: bool
    captions_only: bool
    auto: bool
    transcribe: bool
    social_acquisition_fee: bool


class CapabilitiesChapters(TypedDict):
    available: bool
    origins: list[Literal['platform', 'computed']]
    computed_min_duration_seconds: int
    min_chapter_seconds: int
    model: str | None


class CapabilitiesTranslationMachinePair(TypedDict):
    source: str
    target: str


class CapabilitiesTranslationProvider(TypedDict):
    name: str
    targets: list[str]


class CapabilitiesTranslation(TypedDict):
    platform_languages: Literal['videosite caption tracks']
    machine_pairs: list[CapabilitiesTranslationMachinePair]
    machine_model: str | None
    provider: CapabilitiesTranslationProvider | None


class CapabilitiesSummaries(TypedDict):
    available: bool
    model: str | None
    prompt_words: int


class CapabilitiesRedactionLanguagesByType(TypedDict):
    person: list[str]
    address: list[str]
    id: list[str]


class CapabilitiesRedactionPlaceholders(TypedDict):
    person: NotRequired[str]
    email: NotRequired[str]
    phone: NotRequired[str]
    card: NotRequired[str]
    iban: NotRequired[str]
    address: NotRequired[str]
    id: NotRequired[str]


class CapabilitiesRedaction(TypedDict):
    types: list[Literal['person', 'email', 'phone', 'card', 'iban', 'address', 'id']]
    default_types: list[Literal['person', 'email', 'phone', 'card', 'iban', 'address', 'id']]
    person_languages: list[str]
    languages_by_type: CapabilitiesRedactionLanguagesByType
    model: str | None
    needs_model: list[Literal['person', 'email', 'phone', 'card', 'iban', 'address', 'id']]
    spoken_form_languages: list[str]
    placeholders: CapabilitiesRedactionPlaceholders
    redacted_audio_sources: list[Literal['upload', 'direct']]


class CapabilitiesCleanup(TypedDict):
    profanity_languages: list[str]
    disfluency_languages: list[str]


class CapabilitiesRecognitionProfileMeasurementLanguage(TypedDict):
    language: str
    metric: Literal['wer', 'cer']
    error_rate: float


class CapabilitiesRecognitionProfileMeasurement(TypedDict):
    profile: Literal['standard', 'fast']
    real_time_factor: float | None
    languages: list[CapabilitiesRecognitionProfileMeasurementLanguage]


class CapabilitiesTranscriptionLanguage(TypedDict):
    language: str
    quality_status: Literal['validated_language', 'provider_supported', 'experimental_language']
    metric: Literal['wer', 'cer'] | None
    error_rate: float | None
    clips: int


class Capabilities(TypedDict):
    videosite: CapabilitiesVideosite
    shortvideo: CapabilitiesShortvideo
    photosocial: CapabilitiesPhotosocial
    upload: CapabilitiesUpload
    direct: CapabilitiesDirect
    max_duration_ms: int
    max_media_bytes: int
    export_formats: list[Literal['txt', 'srt', 'vtt', 'json', 'chapters']]
    chapters: CapabilitiesChapters
    translation: CapabilitiesTranslation
    summaries: CapabilitiesSummaries
    redaction: CapabilitiesRedaction
    cleanup: CapabilitiesCleanup
    recognition_profiles: list[Literal['standard', 'fast']]
    recognition_profile_measurements: list[CapabilitiesRecognitionProfileMeasurement]
    recognition_model: str | None
    transcription_languages: list[CapabilitiesTranscriptionLanguage]
    transcribe_credits_per_minute: int
    minimum_billable_seconds: int
    price_version: str
    asr_enabled: bool
    photosocial_enabled: bool
    free_caption_credits: int
    free_caption_credits_period: Literal['month']
    plan: Literal['trial', 'starter', 'pro', 'scale'] | None


class EnvelopeError(ErrorObject):
    doc_url: str


class UsageSubscription(TypedDict):
    status: str
    interval: Literal['monthly', 'yearly']
    cancel_at_period_end: bool
    current_period_end: str


class Usage(TypedDict):
    plan: Literal['trial', 'starter', 'pro', 'scale']
    period_end: str
    credits_remaining: int
    credits_total: int
    credits_reserved: int
    prepaid_credits: int
    transcribe_credits_per_minute: Literal[2]
    minimum_billable_seconds: Literal[60]
    subscription: UsageSubscription | None


class SignUpRequest(TypedDict, closed=True):
    email: str
    password: str
    display_name: str
    workspace_name: NotRequired[str]


class VerifyEmailRequest(TypedDict, closed=True):
    token: str


class SessionUser(TypedDict):
    id: str
    email: str
    display_name: str
    email_verified: bool


class Session(TypedDict):
    user: SessionUser
    workspace_id: str
    csrf_token: str
    expires_at: str


class SignInRequest(TypedDict, closed=True):
    email: str
    password: str


class ApiKey(TypedDict):
    id: str
    name: str
    prefix: str
    scopes: list[Literal['jobs:read', 'jobs:write', 'transcripts:read', 'uploads:write']]
    created_at: str
    last_used_at: str | None
    revoked_at: str | None


class ApiKeyCreated(ApiKey):
    secret: str


class CreateApiKeyRequest(TypedDict, closed=True):
    name: str
    scopes: list[Literal['jobs:read', 'jobs:write', 'transcripts:read', 'uploads:write']]


class Profile(TypedDict):
    display_name: str
    email: str
    email_verified: bool
    workspace_id: str
    workspace_name: str
    plan: Literal['trial', 'starter', 'pro', 'scale']
    retention_days: int
    max_retention_days: int


class UpdateProfileRequestUpdateProfileRequest(TypedDict, closed=True):
    display_name: str
    retention_days: NotRequired[int]


class UpdateProfileRequestUpdateProfileRequest1(TypedDict, closed=True):
    display_name: NotRequired[str]
    retention_days: int


UpdateProfileRequest: TypeAlias = UpdateProfileRequestUpdateProfileRequest | UpdateProfileRequestUpdateProfileRequest1


class DeleteAccountRequest(TypedDict, closed=True):
    confirm: Literal['DELETE']


class CreditQuote(TypedDict):
    plan: Literal['starter', 'pro', 'scale']
    units: int
    unit_price_usd_per_1000: float
    discount_percent: int
    discounted_usd_per_1000: float
    total_usd: float
    total_cents: int
    currency: Literal['usd']
    price_version: str


class CheckoutSession(TypedDict):
    id: str
    url: str
    kind: Literal['subscription', 'credits']
    plan: Literal['starter', 'pro', 'scale']
    interval: Literal['monthly', 'yearly'] | None
    units: int | None
    amount_usd: float
    currency: Literal['usd']
    price_version: str
    expires_at: str


class CheckoutRequestCheckoutRequest(TypedDict, closed=True):
    kind: Literal['subscription']
    plan: Literal['starter', 'pro', 'scale']
    interval: NotRequired[Literal['monthly', 'yearly']]


class CheckoutRequestCheckoutRequest1(TypedDict, closed=True):
    kind: Literal['credits']
    units: int


CheckoutRequest: TypeAlias = CheckoutRequestCheckoutRequest | CheckoutRequestCheckoutRequest1


class PortalSession(TypedDict):
    id: str
    url: str
    return_url: str


class JobBilling(TypedDict):
    credits_reserved: int
    credits_charged: int
    kind: Literal['captions', 'ai_transcription', 'cached']


class JobSource(TypedDict):
    platform: Literal['videosite', 'shortvideo', 'photosocial', 'upload', 'direct', 'hls']
    media_id: str
    canonical_url: str | None
    title: str | None
    upload_id: str | None


class JobRetry(TypedDict):
    attempt: int
    last_error: ErrorObject


class JobOptions(TypedDict):
    mode: Literal['captions_only', 'auto', 'transcribe']
    language: str | None
    caption_preference: Literal['prefer_creator', 'creator_only', 'automatic_only']
    caption_languages: list[str]
    profile: Literal['standard', 'fast']
    vocabulary: list[str]
    speaker_labels: bool
    speakers_expected: int | None
    word_timing: bool
    align_text_chars: int | None
    chapters: bool
    filter_profanity: bool
    disfluencies: bool
    redact_pii: bool
    redacted_audio: bool
    redact_pii_types: list[Literal['person', 'email', 'phone', 'card', 'iban', 'address', 'id']]
    translate_to: str | None
    summarize: bool
    max_duration_s: int | None


class JobProgress(TypedDict):
    transcribed_seconds: float
    total_seconds: float


JobRequestCaptionLanguage: TypeAlias = str


JobRequestVocabularyItem: TypeAlias = str


class JobSourceRequestJobSourceRequest(TypedDict, closed=True):
    url: str
    upload_id: NotRequired[str]


class JobSourceRequestJobSourceRequest1(TypedDict, closed=True):
    url: NotRequired[str]
    upload_id: str


JobSourceRequest: TypeAlias = JobSourceRequestJobSourceRequest | JobSourceRequestJobSourceRequest1


Metadata: TypeAlias = dict[str, str]


class PartialSegment(TypedDict):
    seq: int
    start: float
    end: float
    text: str
    speaker: str | None
    language: str | None


class RetryRequest(TypedDict, closed=True):
    max_credits: NotRequired[int]


class TranscriptSource(TypedDict):
    platform: Literal['videosite', 'shortvideo', 'photosocial', 'upload', 'direct', 'hls']
    media_id: str
    canonical_url: str | None
    title: str | None


class TranscriptCaptionLanguageCheck(TypedDict):
    label: str | None
    detected: str | None
    matches: bool | None


class TranscriptRecognition(TypedDict):
    model: str
    profile: Literal['standard', 'fast']
    quality_status: Literal['validated_language', 'provider_supported', 'experimental_language']
    language_probability: NotRequired[float | None]


class TranscriptAlignment(TypedDict):
    method: Literal['word_timing', 'align_text']
    model: str
    match_threshold: float
    segments_below_threshold: int


class Segment(TypedDict):
    start: float
    end: float
    text: str
    speaker: str | None
    language: str | None
    match: float | None


class Word(TypedDict):
    start: float
    end: float
    text: str
    confidence: float
    speaker: str | None


class Speaker(TypedDict):
    id: str
    words: int
    seconds: float


class LanguageSeconds(TypedDict):
    language: str
    seconds: float


class Chapter(TypedDict):
    start: float
    end: float
    title: str
    origin: Literal['platform', 'computed']


class TranscriptTranslationSegment(TypedDict):
    start: float
    end: float
    text: str


class TranscriptTranslation(TypedDict):
    language: str
    origin: Literal['platform', 'machine', 'provider']
    segments: list[TranscriptTranslationSegment]


class TranscriptSummaryChapter(TypedDict):
    start: float
    end: float
    title: str
    summary: str | None


class TranscriptSummary(TypedDict):
    text: str
    key_points: list[str]
    chapters: list[TranscriptSummaryChapter]
    model: str


class TranscriptRedactedAudio(TypedDict):
    content_type: str
    bytes: int
    tone_spans: int


class TranscriptDeletion(TypedDict):
    id: str
    status: Literal['deletion_scheduled']
    purge_after: str


class MomentSource(TypedDict):
    platform: Literal['videosite', 'shortvideo', 'photosocial', 'upload', 'direct', 'hls']
    media_id: str
    title: str | None
    canonical_url: str | None


class Moment(TypedDict):
    transcript_id: str
    job_id: str
    source: MomentSource
    start: float
    end: float
    text: str
    highlighted_text: str
    speaker: str | None
    language: str | None
    score: float
    link: str | None


class ListenToken(TypedDict):
    token: str
    expires_at: str


class ListenSessionResourceAudio(TypedDict):
    content_type: Literal['audio/wav', 'audio/ogg']
    bytes: int
    url: str
    expires_at: str


class ListenSessionResource(TypedDict):
    id: str
    status: Literal['active', 'ended']
    language: str | None
    encoding: Literal['pcm_s16le', 'opus']
    audio_seconds: float
    credits_charged: int
    started_at: str
    ended_at: str | None
    audio: ListenSessionResourceAudio | None


class BatchItem(TypedDict):
    job_id: str
    item_index: int
    status: str


class Batch(TypedDict):
    id: str
    status: Literal['queued', 'processing', 'succeeded', 'partial_success', 'failed', 'cancelled']
    total_items: int
    succeeded_items: int
    failed_items: int
    cancelled_items: int
    items: list[BatchItem]
    metadata: dict[str, str]
    created_at: str


class WebhookEndpoint(TypedDict):
    id: str
    url: str
    description: str | None
    enabled: bool
    created_at: str
    disabled_at: str | None


class WebhookEndpointRequest(TypedDict, closed=True):
    url: str
    description: NotRequired[str]


class WebhookEndpointList(TypedDict):
    endpoints: list[WebhookEndpoint]


class WebhookDelivery(TypedDict):
    id: str
    event_id: str
    event_type: str
    endpoint_id: str
    url: str
    attempt: int
    status_code: int | None
    succeeded: bool
    error: str | None
    duration_ms: int
    created_at: str


class Upload(TypedDict):
    id: str
    status: Literal['pending', 'verifying', 'ready', 'failed', 'expired']
    filename: str
    content_type: str
    bytes: int
    signed_upload_url: str | None
    expires_at: str
    duration_ms: int | None
    error: ErrorObject | None
    created_at: str
    completed_at: str | None


class UploadRequest(TypedDict, closed=True):
    filename: str
    content_type: Literal['audio/mpeg', 'audio/mp3', 'audio/wav', 'audio/x-wav', 'audio/wave', 'audio/mp4', 'audio/x-m4a', 'audio/m4a', 'audio/ogg', 'audio/aac', 'audio/x-aac', 'video/mp4', 'video/webm', 'audio/webm']
    bytes: int


class ShortvideoDetails(TypedDict):
    like_count: int | None
    comment_count: int | None
    share_count: int | None
    hashtags: list[str]
    caption_languages: list[str]


class DiscoveryProfile(TypedDict):
    platform: Literal['videosite', 'shortvideo']
    id: str
    handle: str | None
    title: str | None
    url: str
    subscriber_count_text: str | None
    avatar_url: str | None


class VideoDiscoveryRequest(TypedDict, closed=True):
    kind: Literal['videosite_search', 'videosite_channel_videos', 'videosite_channel_search', 'videosite_playlist_videos', 'shortvideo_user_videos']
    query: NotRequired[str]
    channel: NotRequired[str]
    playlist: NotRequired[str]
    user: NotRequired[str]
    limit: NotRequired[int]
    cursor: NotRequired[str]
    include_details: NotRequired[bool]


class LanguageDiscoverySource(TypedDict):
    platform: Literal['videosite']
    media_id: str
    canonical_url: str


class LanguageDiscoveryVideo(TypedDict):
    video_id: str
    url: str
    title: str | None
    duration_s: int | None


class CaptionTrack(TypedDict):
    language_code: str
    name: str
    kind: Literal['creator', 'automatic']
    is_default: bool
    is_translatable: bool


class LanguageDiscoveryRequestSource(TypedDict, closed=True):
    url: str


class LanguageDiscoveryRequest(TypedDict, closed=True):
    source: LanguageDiscoveryRequestSource


class OAuthAuthorization(TypedDict):
    id: str
    client_id: str
    client_name: str | None
    scopes: list[Literal['jobs:read', 'jobs:write', 'transcripts:read', 'uploads:write']]
    resources: list[str]
    created_at: str
    expires_at: str | None
    active_access_tokens: int
    active_refresh_tokens: int
    last_token_issued_at: str | None


class ListenErrorMessage(TypedDict):
    type: Literal['error']
    error: ErrorObject
    request_id: str


ListenServerMessage: TypeAlias = ListenSessionMessage | ListenPartialMessage | ListenFinalMessage | ListenClosedMessage | ListenErrorMessage


class ErrorEnvelope(TypedDict):
    error: EnvelopeError
    request_id: str


class ApiKeyList(TypedDict):
    keys: list[ApiKey]


class Job(TypedDict):
    id: str
    status: Literal['queued', 'processing', 'awaiting_provider', 'succeeded', 'failed', 'cancelled']
    stage: Literal['resolve', 'captions', 'acquire_audio', 'submit_asr', 'wait_asr', 'finalize'] | None
    result_id: str | None
    error: ErrorObject | None
    billing: JobBilling
    source: JobSource
    options: JobOptions
    metadata: dict[str, str]
    batch_id: str | None
    progress: JobProgress | None
    retry: JobRetry | None
    created_at: str
    updated_at: str


class JobRequest(TypedDict, closed=True):
    source: JobSourceRequest
    mode: Literal['captions_only', 'auto', 'transcribe']
    caption_languages: NotRequired[list[JobRequestCaptionLanguage]]
    caption_preference: NotRequired[Literal['prefer_creator', 'creator_only', 'automatic_only']]
    language: NotRequired[str]
    max_credits: NotRequired[int]
    profile: NotRequired[Literal['standard', 'fast']]
    vocabulary: NotRequired[list[JobRequestVocabularyItem]]
    speaker_labels: NotRequired[bool]
    speakers_expected: NotRequired[int]
    word_timing: NotRequired[bool]
    align_text: NotRequired[str]
    chapters: NotRequired[bool]
    filter_profanity: NotRequired[bool]
    disfluencies: NotRequired[bool]
    redact_pii: NotRequired[bool]
    redact_pii_types: NotRequired[list[Literal['person', 'email', 'phone', 'card', 'iban', 'address', 'id']]]
    redacted_audio: NotRequired[bool]
    translate_to: NotRequired[str]
    summarize: NotRequired[bool]
    max_duration_s: NotRequired[int]
    webhook_endpoint_id: NotRequired[str]
    metadata: NotRequired[Metadata]


class JobList(TypedDict):
    jobs: list[Job]
    next_cursor: str | None


class JobSegments(TypedDict):
    job_id: str
    status: Literal['queued', 'processing', 'awaiting_provider', 'succeeded', 'failed', 'cancelled']
    result_id: str | None
    progress: JobProgress | None
    segments: list[PartialSegment]
    next_after: int


class Transcript(TypedDict):
    id: str
    source: TranscriptSource
    source_origin: Literal['creator_captions', 'platform_captions', 'speech_recognition', 'provided_text']
    language: str | None
    text: str
    segments: list[Segment]
    words: list[Word] | None
    timing_granularity: Literal['word', 'segment', 'none']
    duration_seconds: float | None
    speakers: list[Speaker] | None
    caption_language_check: TranscriptCaptionLanguageCheck | None
    languages: list[LanguageSeconds]
    recognition: TranscriptRecognition | None
    alignment: TranscriptAlignment | None
    chapters: list[Chapter] | None
    translation: TranscriptTranslation | None
    summary: TranscriptSummary | None
    redacted_audio: TranscriptRedactedAudio | None
    extraction_version: str
    created_at: str
    expires_at: str


class SearchResult(TypedDict):
    mode: Literal['keyword', 'semantic', 'hybrid']
    moments: list[Moment]
    next_cursor: str | None


class BatchRequest(TypedDict, closed=True):
    items: list[JobRequest]
    webhook_endpoint_id: NotRequired[str]
    metadata: NotRequired[Metadata]


class WebhookEndpointCreated(WebhookEndpoint):
    secret: str


class VideoEntry(TypedDict):
    platform: Literal['videosite', 'shortvideo']
    video_id: str
    url: str
    title: str | None
    channel_id: str | None
    channel_title: str | None
    duration_s: int | None
    published_at: str | None
    published_text: str | None
    view_count: int | None
    view_count_text: str | None
    thumbnail_url: str | None
    shortvideo: ShortvideoDetails | None


class LanguageDiscovery(TypedDict):
    id: str
    status: Literal['queued', 'processing', 'succeeded', 'failed']
    source: LanguageDiscoverySource
    video: LanguageDiscoveryVideo | None
    tracks: list[CaptionTrack]
    error: ErrorObject | None
    created_at: str
    updated_at: str
    expires_at: str


class OAuthAuthorizationList(TypedDict):
    authorizations: list[OAuthAuthorization]


class VideoDiscovery(TypedDict):
    id: str
    kind: Literal['videosite_search', 'videosite_channel_videos', 'videosite_channel_search', 'videosite_playlist_videos', 'shortvideo_user_videos']
    status: Literal['queued', 'processing', 'succeeded', 'failed']
    request: dict[str, Any]
    videos: list[VideoEntry]
    profile: DiscoveryProfile | None
    next_cursor: str | None
    error: ErrorObject | None
    created_at: str
    updated_at: str
    expires_at: str
