import AuthFlow
import Backend
import Hummingbird
import Phone
import PushService

// The domain modules know nothing of HTTP; these make their values answers.
extension PhoneSummary: ResponseEncodable {}
extension PhoneDetail: ResponseEncodable {}
extension BackendSession: ResponseEncodable {}
extension SessionStart: ResponseEncodable {}
extension PushService.InboxMessage: ResponseEncodable {}
