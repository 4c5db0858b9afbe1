/**
 * The protocol's response types, named so that JSON Schemas can be generated from them: tests
 * validate every response body against the very types `@sonolus/core` publishes.
 */
import type {
    BackgroundItem,
    EffectItem,
    EngineItem,
    LevelData,
    LevelItem,
    ParticleItem,
    PlaylistItem,
    PostItem,
    ReplayItem,
    RoomItem,
    ServerAuthenticateResponse,
    ServerCreateItemResponse,
    ServerCreateRoomResponse,
    ServerInfo,
    ServerItemCommunityCommentList,
    ServerItemCommunityInfo,
    ServerItemDetails,
    ServerItemInfo,
    ServerItemLeaderboardDetails,
    ServerItemLeaderboardRecordDetails,
    ServerItemLeaderboardRecordList,
    ServerItemList,
    ServerJoinRoomResponse,
    ServerLevelResultInfo,
    ServerSubmitItemCommunityActionResponse,
    ServerSubmitLevelResultResponse,
    ServerUploadItemResponse,
    ServerMessage,
    SkinItem,
    UserItem,
} from '@sonolus/core'

export type Responses = {
    /** Not a response: what a level's `data` resource holds, gunzipped. */
    LevelData: LevelData
    ServerAuthenticateResponse: ServerAuthenticateResponse
    ServerCreateRoomResponse: ServerCreateRoomResponse
    ServerCreateItemResponse: ServerCreateItemResponse
    ServerUploadItemResponse: ServerUploadItemResponse
    ServerSubmitItemCommunityActionResponse: ServerSubmitItemCommunityActionResponse
    ServerSubmitLevelResultResponse: ServerSubmitLevelResultResponse
    ServerJoinRoomResponse: ServerJoinRoomResponse
    RoomDetails: ServerItemDetails<RoomItem>
    ServerInfo: ServerInfo
    ServerItemInfo: ServerItemInfo
    ServerLevelResultInfo: ServerLevelResultInfo
    ServerMessage: ServerMessage
    ServerItemCommunityInfo: ServerItemCommunityInfo
    ServerItemCommunityCommentList: ServerItemCommunityCommentList
    ServerItemLeaderboardDetails: ServerItemLeaderboardDetails
    ServerItemLeaderboardRecordList: ServerItemLeaderboardRecordList
    ServerItemLeaderboardRecordDetails: ServerItemLeaderboardRecordDetails
    PostList: ServerItemList<PostItem>
    PlaylistList: ServerItemList<PlaylistItem>
    LevelList: ServerItemList<LevelItem>
    SkinList: ServerItemList<SkinItem>
    BackgroundList: ServerItemList<BackgroundItem>
    EffectList: ServerItemList<EffectItem>
    ParticleList: ServerItemList<ParticleItem>
    EngineList: ServerItemList<EngineItem>
    ReplayList: ServerItemList<ReplayItem>
    RoomList: ServerItemList<RoomItem>
    UserList: ServerItemList<UserItem>
    PostDetails: ServerItemDetails<PostItem>
    PlaylistDetails: ServerItemDetails<PlaylistItem>
    LevelDetails: ServerItemDetails<LevelItem>
    SkinDetails: ServerItemDetails<SkinItem>
    BackgroundDetails: ServerItemDetails<BackgroundItem>
    EffectDetails: ServerItemDetails<EffectItem>
    ParticleDetails: ServerItemDetails<ParticleItem>
    EngineDetails: ServerItemDetails<EngineItem>
    ReplayDetails: ServerItemDetails<ReplayItem>
    UserDetails: ServerItemDetails<UserItem>
}
